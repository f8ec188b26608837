"""A MariaDB master's statement-format LOAD DATA INFILE as the applier applies it (slave/applier.py),
against a real engine and relay log in tmp_path: the file's blocks (Begin_load_query,
Append_block) spooled to a file in the datadir, the Execute_load_query statement run on it
through `server.load_data.replicated_load` in the event's transaction, the file gone after;
Delete_file drops it; a stop in the middle of the events leaves nothing applied and the next
run loads the file once; a load that failed part-way on the master (error_code) and a server
without the rows seam stop the applier with 1235.
tests/integration/test_file_statements_mariadb.py runs it against a live MariaDB master."""

from __future__ import annotations

import asyncio

from engine import Engine, StatementContext
from protocol.events import (
    LOAD_DUP_IGNORE,
    AppendBlock,
    BeginLoadQuery,
    DeleteFile,
    ExecuteLoadQuery,
    Query,
    Xid,
)
from server.load_data import replicated_load
from slave.applier import Applier
from tests.unit.test_slave_applier import Relay, until

STATEMENT = "LOAD DATA INFILE '/master/f.txt' IGNORE INTO TABLE t FIELDS TERMINATED BY ',' (id, @v) SET n = @v * 2"


def execute_load(file_id: int, error_code: int = 0) -> ExecuteLoadQuery:
    return ExecuteLoadQuery(file_id=file_id, fn_pos_start=len("LOAD DATA"),
                            fn_pos_end=STATEMENT.index(" INTO") + len(" INTO"), dup_handling=LOAD_DUP_IGNORE,
                            error_code=error_code, db="d", query=STATEMENT)


def load_transaction(relay: Relay, file_id: int, blocks: list[bytes], last=None) -> list[bytes]:
    events = [relay.stream.event(Query(db="d", query="BEGIN")),
              relay.stream.event(BeginLoadQuery(file_id, blocks[0]))]
    events += [relay.stream.event(AppendBlock(file_id, block)) for block in blocks[1:]]
    return [*events, relay.stream.event(last or execute_load(file_id)), relay.stream.event(Xid(file_id))]


async def setup(tmp_path, *, seam: bool = True) -> tuple[Relay, Engine, Applier]:
    relay = Relay(tmp_path)  # (d.t's id column; n added here)
    relay.append([relay.stream.event(Query(db="d", query="ALTER TABLE t ADD COLUMN n INT"))])
    engine = await Engine.open(tmp_path / "db", readers=1)

    def load_rows(sql, db, data, mode):
        return replicated_load(engine, sql, db, data, mode)

    applier = Applier(engine, relay.log, table_columns=lambda db, table: None,
                      make_context=lambda **kw: StatementContext(**kw), load_rows=load_rows if seam else None)
    return relay, engine, applier


async def table(engine: Engine) -> list[tuple]:
    return [tuple(row) for row in (await engine.session(0).execute("SELECT id, n FROM d.t ORDER BY id")).rows]


def spooled(tmp_path) -> list[str]:
    return sorted(path.name for path in (tmp_path / "relay").glob("SQL_LOAD-*"))


async def test_the_files_blocks_are_loaded_by_its_statement_in_its_transaction(tmp_path):
    relay, engine, applier = await setup(tmp_path)
    relay.append(load_transaction(relay, 7, [b"1,10\n2,", b"20\n3,30", b"\n1,99\n"]))
    relay.append(load_transaction(relay, 8, [b"4,1\n"], DeleteFile(8))[:-1] + [relay.stream.event(Xid(9))])
    relay.append([relay.stream.event(Query(db="d", query="INSERT INTO t (id) VALUES (5)"))])
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.relay_pos == relay.log.size)
    assert await table(engine) == [(1, 20), (2, 40), (3, 60), (5, None)]  # (IGNORE: the second 1 skipped)
    assert applier.last_errno == 0 and spooled(tmp_path) == []
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_a_stop_in_the_middle_of_the_events_loads_the_file_once_at_the_next_run(tmp_path, monkeypatch):
    relay, engine, applier = await setup(tmp_path)
    relay.append(load_transaction(relay, 3, [b"1,1\n", b"2,2\n"]))
    spool = applier._spool

    def stop_after_the_first_block(stream, body, origin):
        spool(stream, body, origin)
        applier.stop()

    monkeypatch.setattr(applier, "_spool", stop_after_the_first_block)
    await asyncio.wait_for(applier.run(), 5)
    assert spooled(tmp_path) == ["SQL_LOAD-2-1-3.data"]  # the first block on disk, nothing applied
    assert (tmp_path / "relay" / "SQL_LOAD-2-1-3.data").read_bytes() == b"1,1\n"
    assert await table(engine) == []
    monkeypatch.setattr(applier, "_spool", spool)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.relay_pos == relay.log.size)
    assert await table(engine) == [(1, 2), (2, 4)] and spooled(tmp_path) == []
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_a_load_that_failed_part_way_on_the_master_or_no_rows_seam_stops_with_1235(tmp_path):
    for seam, error_code, what in ((True, 1062, "LOAD DATA INFILE that failed on the master (error 1062)"),
                                   (False, 0, "LOAD DATA INFILE replicated as its file")):
        base = tmp_path / what[:20].replace(" ", "_")
        relay, engine, applier = await setup(base, seam=seam)
        relay.append(load_transaction(relay, 1, [b"1,1\n"], execute_load(1, error_code)))
        await asyncio.wait_for(applier.run(), 5)
        assert applier.last_errno == 1235 and what in applier.last_error
        assert await table(engine) == [] and spooled(base) == []
        await engine.close()
