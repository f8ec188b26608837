"""The applier's batches against a real engine and a real relay log in tmp_path: consecutive
complete transactions go into ONE engine commit that also stores the applier's position; a
failing transaction commits those before it and stops the applier as without batching.
"""

from __future__ import annotations

import asyncio
import os

import slave.applier as applier_module
from engine import Engine, StatementContext
from protocol.events import FormatDescription, Query, Rotate, Xid, encode_body_event
from slave.applier import (
    MAX_BATCH_TRANSACTIONS,
    META_MASTER_FILE,
    META_MASTER_POS,
    META_RELAY_POS,
    Applier,
)
from slave.relay_log import RelayLog
from tests.support.relay_stream import Stream


class Relay:
    """A relay log file holding the master's ROTATE + FD, then whatever the test appends."""

    def __init__(self, tmp_path) -> None:
        self.log = RelayLog(tmp_path / "relay", "relay-bin", server_id=2)
        self.log.recover()
        self.log.start_file(checksum=True)
        self.stream = Stream()
        self.append(self.stream.start())
        self.append([self.stream.event(Query(db="", query="CREATE DATABASE d")),
                     self.stream.event(Query(db="d", query="CREATE TABLE t (id INT PRIMARY KEY)"))])

    def append(self, events: list[bytes]) -> None:
        """Append whole transactions and make them readable, as the IO task does after a fsync."""
        for e in events:
            self.log.append(e)
        self.log.flush()
        self.log.readable = self.log.position_of(self.log.current or "", self.log.size)

    def transactions(self, numbers) -> None:
        self.append([e for n in numbers for e in self.stream.transaction(n)])


async def open_engine(tmp_path) -> tuple[Engine, list[dict]]:
    """The engine, and the meta of each SQLite commit it makes (one entry per commit)."""
    engine = await Engine.open(tmp_path / "db", readers=1)
    commits: list[dict] = []
    real = engine._w_commit_group

    def counted(meta: dict, durable: bool = True) -> None:
        real(meta, durable)
        commits.append(dict(meta))

    engine._w_commit_group = counted  # type: ignore[method-assign]
    return engine, commits


def make_applier(engine: Engine, relay: Relay, commit_wait: float = 0.0) -> Applier:
    return Applier(engine, relay.log, table_columns=lambda db, table: None,
                   make_context=lambda **kw: StatementContext(**kw), commit_wait=lambda: commit_wait)


async def until(predicate, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


async def count_rows(engine: Engine) -> int:
    result = await engine.session(0).execute("SELECT COUNT(*) FROM d.t")
    return result.rows[0][0]


async def test_readable_transactions_are_one_commit_with_the_position(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 21))
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 22)  # the 2 DDL statements and 20 inserts
    assert len(commits) == 3  # each DDL alone, then ONE SQLite commit (one fsync) for 20 inserts
    assert int(commits[2][META_RELAY_POS]) == relay.log.size
    assert int(commits[2][META_MASTER_POS]) == relay.stream.pos
    assert applier.relay_pos == relay.log.size and applier.master_pos == relay.stream.pos
    # what arrives later is the next batch
    relay.transactions(range(21, 24))
    applier.notify()
    await until(lambda: applier.applied_transactions == 25)
    assert len(commits) == 4 and int(commits[3][META_RELAY_POS]) == relay.log.size
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()
    # durable together: reopened, the engine has every row and the position after the last one
    again = await Engine.open(tmp_path / "db", readers=1)
    assert await count_rows(again) == 23
    assert int(again.meta()[META_RELAY_POS]) == relay.log.size
    await again.close()


async def test_the_applier_goes_on_in_the_loop_s_next_turn_once_its_commit_ended(tmp_path):
    """The commit seam runs in a task of its own (`_commit_shielded`: not cancelled with the
    applier), which settles the applier's wait in its last step: the applier counts the batch in
    the next turn of the loop, no done callback's turn between (one turn less per batch)."""
    relay = Relay(tmp_path)
    engine, _commits = await open_engine(tmp_path)
    turns: list[int] = []

    async def commit(transactions) -> None:
        await applier.commit_to_engine(transactions)
        applied = applier.applied_transactions

        async def count() -> None:  # the loop's turns from here until the applier counted the batch
            n = 0
            while applier.applied_transactions == applied:
                n += 1
                await asyncio.sleep(0)
            turns.append(n)

        asyncio.get_running_loop().create_task(count())

    applier = Applier(engine, relay.log, table_columns=lambda db, table: None,
                      make_context=lambda **kw: StatementContext(**kw), commit=commit)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2)
    relay.transactions([1])
    applier.notify()
    await until(lambda: applier.applied_transactions == 3 and len(turns) == 3)
    assert turns == [1, 1, 1]
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_a_stop_before_the_sql_task_first_runs_is_kept(tmp_path):
    """START SLAVE then STOP SLAVE at once: the task created by the first ends at the second."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    applier.stop()  # before the task's first step
    await asyncio.wait_for(task, 5)
    assert not applier.running
    await engine.close()


async def test_a_batch_is_bounded(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 2 * MAX_BATCH_TRANSACTIONS + 1))
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2 + 2 * MAX_BATCH_TRANSACTIONS)
    assert len(commits) == 2 + 2  # the DDL, then two full batches
    assert [int(c[META_RELAY_POS]) for c in commits] == sorted(int(c[META_RELAY_POS]) for c in commits)
    applier.stop()
    await asyncio.wait_for(task, 5)
    assert await count_rows(engine) == 2 * MAX_BATCH_TRANSACTIONS
    await engine.close()


async def test_a_failing_transaction_commits_those_before_it_and_stops(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 6))
    good_end = relay.log.size
    relay.transactions([3, 6])  # a duplicate key, then one that must not be applied
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    await asyncio.wait_for(applier.run(), 10)  # stops on the error
    assert applier.last_errno == 1062 and "INSERT INTO t VALUES (3)" in applier.last_error
    assert await count_rows(engine) == 5
    assert int(engine.meta()[META_RELAY_POS]) == good_end == applier.relay_pos
    assert applier.applied_transactions == 7
    # START SLAVE again: it retries from the saved position (and fails the same way)
    await asyncio.wait_for(applier.run(), 10)
    assert applier.last_errno == 1062 and await count_rows(engine) == 5
    await engine.close()


async def test_an_event_that_applies_nothing_waits_for_the_batch_before_it(tmp_path):
    """The master's ROTATE between transactions: the batch before it commits with the old
    coordinates, the position moves past the ROTATE only then, the next batch has the new ones."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    before_rotate = (relay.log.size, relay.stream.pos)
    relay.append([relay.stream.event(Rotate(4, "master-bin.000002"))])
    relay.stream.pos = 4
    relay.transactions(range(4, 7))
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2 + 6)
    applier.stop()
    await asyncio.wait_for(task, 5)
    first, second = commits[2:]
    assert (int(first[META_RELAY_POS]), int(first[META_MASTER_POS])) == before_rotate
    assert first[META_MASTER_FILE] == "master-bin.000001"
    assert second[META_MASTER_FILE] == "master-bin.000002" and int(second[META_MASTER_POS]) == relay.stream.pos
    assert await count_rows(engine) == 6
    await engine.close()


async def test_what_the_binlog_reader_refuses_stops_the_applier_with_1594_after_the_transactions_before_it(tmp_path):
    """The applier reads with binlog.reader: bytes that are no event (here zeros, an event size of
    0) end the read with ER_SLAVE_RELAY_LOG_READ_FAILURE naming the file and the offset; what was
    read before them is applied, and the position stays before them."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    good_end = relay.log.size
    relay.append([bytes(32)])
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    await asyncio.wait_for(applier.run(), 10)  # stops on the error
    assert applier.last_errno == 1594
    assert "relay-bin.000001" in applier.last_error and f"at offset {good_end}" in applier.last_error
    assert await count_rows(engine) == 3
    assert int(engine.meta()[META_RELAY_POS]) == good_end == applier.relay_pos
    await engine.close()


async def test_the_relay_file_stays_open_between_batches_and_is_opened_again_when_made_anew(tmp_path, monkeypatch):
    """One open of the relay file for many batches; a file made anew under the same name (another
    inode) is opened again, and its events are the ones applied."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 3))
    opened = []
    real_open = applier_module.open_binlog
    monkeypatch.setattr(applier_module, "open_binlog", lambda path: opened.append(path) or real_open(path))
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 4)
    for n in range(3, 8):  # five more batches, one at a time
        relay.transactions([n])
        applier.notify()
        await until(lambda n=n: applier.applied_transactions == 2 + n)
    assert len(opened) == 1
    path = relay.log.path(relay.log.current or "")
    data = path.read_bytes() + b"".join(relay.stream.transaction(8))
    anew = path.with_name("anew")
    anew.write_bytes(data)
    os.replace(anew, path)
    relay.log.readable = relay.log.position_of(relay.log.current or "", len(data))
    applier.notify()
    await until(lambda: applier.applied_transactions == 10)
    assert len(opened) == 2 and await count_rows(engine) == 8
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_a_relay_file_cut_back_and_written_again_is_read_as_it_is_now(tmp_path):
    """The relay file kept open is read anew each time: a transaction that was written but
    never readable (its fsync and ack never came), cut back on reconnect and replaced by the
    master's next one at the same offsets, is never applied."""
    relay = Relay(tmp_path)
    relay.transactions([1, 2])
    readable_end, master_pos = relay.log.size, relay.stream.pos
    for event in relay.stream.transaction(3):  # written, not readable
        relay.log.append(event)
    relay.log.flush()
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 4)
    relay.log.truncate_tail(readable_end)
    relay.stream.pos = master_pos
    relay.transactions([4])
    applier.notify()
    await until(lambda: applier.applied_transactions == 5)
    result = await engine.session(0).execute("SELECT id FROM d.t ORDER BY id")
    assert [row[0] for row in result.rows] == [1, 2, 4]
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_what_the_relay_log_holds_in_memory_is_applied_without_reading_the_file(tmp_path, monkeypatch):
    """Once past the relay file's head, the applier takes the IO task's appended events from the
    relay log's tail: no read of the file per batch. They are the bytes checked on receipt; the
    file's copy is read (and its CRC32 checked) only by an applier the tail cannot serve: here a
    byte of the file damaged on disk after the write is not applied from memory, and an applier
    started anew on a fresh relay log instance stops on it with 1594."""
    relay = Relay(tmp_path)
    relay.transactions([1])
    reads: list[tuple[int, int | None]] = []
    real_read = applier_module.iter_open_events

    def counted(f, path, start=4, end=None):
        reads.append((start, end))
        return real_read(f, path, start, end)

    monkeypatch.setattr(applier_module, "iter_open_events", counted)
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 3)
    first_reads = len(reads)
    damaged_at = relay.log.size
    for n in range(2, 7):
        relay.transactions([n])
        applier.notify()
        await until(lambda n=n: applier.applied_transactions == 2 + n)
    assert len(reads) == first_reads
    assert await count_rows(engine) == 6
    # damage the first of those transactions' bytes on disk (a bit flip in its GTID event's body)
    path = relay.log.path(relay.log.current or "")
    with open(path, "r+b") as f:
        f.seek(damaged_at + 20)
        byte = f.read(1)
        f.seek(damaged_at + 20)
        f.write(bytes([byte[0] ^ 0x40]))
    applier.stop()
    await asyncio.wait_for(task, 5)
    engine2, _ = await open_engine(tmp_path / "again")
    fresh = RelayLog(tmp_path / "relay", "relay-bin", server_id=2)
    fresh.readable = relay.log.readable
    again = Applier(engine2, fresh, table_columns=lambda db, table: None,
                    make_context=lambda **kw: StatementContext(**kw))
    await asyncio.wait_for(again.run(), 10)
    assert again.last_errno == 1594 and "CRC32" in again.last_error
    assert await count_rows(engine2) == 1
    await engine.close()
    await engine2.close()


def test_a_query_decided_by_its_first_character_is_what_its_words_decide():
    """`_PLAIN_FIRST`: a QUERY starting with one of them is a plain statement, as statement_kind
    and the user-statement prefixes would find; no other character is taken on trust ('ſ'
    upper-cases to 'S', so 'ſTART TRANSACTION' is a BEGIN)."""
    from protocol.statements import statement_kind
    from slave.applier import _PLAIN_FIRST, USER_STATEMENT_PREFIXES

    rests = ["", "NSERT INTO t VALUES (1)", "PDATE t SET a=1", " BEGIN", "EGIN", "OMMIT", "TART TRANSACTION",
             "RANT ALL ON *.* TO u", "ET PASSWORD = 'x'", "LUSH PRIVILEGES", "ROP USER u"]
    for first in map(chr, range(0x250)):
        for rest in rests:
            sql = first + rest
            words = " ".join(sql.lstrip().split(None, 2)[:2]).upper()
            plain = statement_kind(sql) == "OTHER" and not words.startswith(USER_STATEMENT_PREFIXES)
            if first in _PLAIN_FIRST:
                assert plain, sql
    assert _PLAIN_FIRST <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    assert "ſ" not in _PLAIN_FIRST and statement_kind("ſTART TRANSACTION") == "BEGIN"


async def test_statements_boundaries_and_user_statements_apply_whichever_way_they_are_told_apart(tmp_path):
    """Lower-case and blank-led spellings are decided by their words, INSERT/UPDATE by their first
    character: the transactions apply as their boundaries say, the user statement goes aside."""
    relay = Relay(tmp_path)
    engine, _ = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    users: list[str] = []
    applier.apply_user_statement = users.append
    q = relay.stream.event
    relay.append([
        q(Query(db="d", query="begin")), q(Query(db="d", query="insert into t VALUES (1)")),
        q(Query(db="d", query="  COMMIT")),
        q(Query(db="d", query="START TRANSACTION")), q(Query(db="d", query="INSERT INTO t VALUES (2)")),
        q(Query(db="d", query="UPDATE t SET id = 3 WHERE id = 2")), q(Query(db="d", query="rollback")),
        q(Query(db="d", query="update t SET id = 4 WHERE id = 1")),
        q(Query(db="d", query="grant all on *.* to u")),
    ])
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.relay_pos == relay.log.size)
    result = await engine.session(0).execute("SELECT id FROM d.t ORDER BY id")
    assert result.rows == [(4,)]
    assert users == ["grant all on *.* to u"]
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_groups_are_counted_by_the_kind_the_applier_decided_when_it_batched_them(tmp_path):
    """Slave_Transactional_Groups / Slave_DDL_Groups (`transactional_groups`, `ddl_groups`):
    a transaction whose first statement is DML is transactional, one of other statements or a
    user statement is DDL, a rolled-back one is neither, each counted once committed. The kind
    is the one `_commit` decided as it read the statements (`ReadyTransaction.transactional`),
    not read from the statements again once the batch is committed."""
    relay = Relay(tmp_path)  # CREATE DATABASE, CREATE TABLE: two DDL groups
    engine, _ = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    applier.apply_user_statement = lambda sql: None
    q = relay.stream.event
    relay.transactions([1, 2])
    relay.append([q(Query(db="d", query="BEGIN")), q(Query(db="d", query="INSERT INTO t VALUES (3)")),
                  q(Query(db="d", query="ROLLBACK")),
                  q(Query(db="d", query="  update t SET id = 4 WHERE id = 1")),
                  q(Query(db="d", query="CREATE TABLE t2 (a INT)")),
                  q(Query(db="d", query="GRANT ALL ON *.* TO u"))])
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.relay_pos == relay.log.size)
    assert (applier.transactional_groups, applier.ddl_groups) == (3, 4)
    # what is counted is the kind carried, whatever the statements read
    ddl = applier_module.ReadyTransaction([("CREATE TABLE t3 (a INT)", None, "d")], {}, applier.relay_pos, 0,
                                          transactional=True)
    applier._applied([ddl])
    assert (applier.transactional_groups, applier.ddl_groups) == (4, 4)
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def running_applier(tmp_path, commit_wait: float):
    """An applier with `commit_wait` (seconds), running, past the DDL readable before its start:
    (relay, engine, the engine's commits, applier, its task)."""
    relay = Relay(tmp_path)
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay, commit_wait)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2)
    return relay, engine, commits, applier, task


async def gathered_in_one_commit(relay, applier, commits, numbers: tuple[int, int], *, applied: int,
                                 wait: float, gap: float) -> None:
    """Transactions `numbers` arrive `gap` s apart while the applier gathers (`applied` done
    before them): neither is applied before the wait is out, then both are, in one commit."""
    loop = asyncio.get_running_loop()
    before = len(commits)
    relay.transactions([numbers[0]])
    applier.notify()
    started = loop.time()
    await asyncio.sleep(gap)
    relay.transactions([numbers[1]])
    applier.notify()
    await asyncio.sleep(0.2)
    assert applier.applied_transactions == applied  # still waiting
    await until(lambda: applier.applied_transactions == applied + 2)
    assert loop.time() - started >= wait * 0.9
    assert len(commits) == before + 1  # both in one commit


async def test_a_transaction_that_wakes_the_applier_waits_for_the_next_ones_unless_writes_are_sparse_or_someone_waits(tmp_path):
    """slave_commit_wait_usec (`Applier._gather`): after a wakeup from idle, the applier waits up
    to the wait for more transactions and applies them as one batch. The first wakeup (nothing
    before it: sparse) applies at once; `urgent()` (MASTER_GTID_WAIT, MASTER_POS_WAIT) and stop()
    end a wait in progress."""
    # (the transaction after the gathered two comes about wait - gap after the second: at least
    # 1.5 s inside the wait, and the check that the applier still gathers comes 1.3 s before
    # the wait is out, so that a busy machine's stall does not change what the test sees)
    wait = 3.0
    relay, engine, commits, applier, task = await running_applier(tmp_path, wait)
    loop = asyncio.get_running_loop()

    relay.transactions([1])
    applier.notify()  # the first wakeup: nothing to gather after a long idle
    started = loop.time()
    await until(lambda: applier.applied_transactions == 3)
    assert loop.time() - started < wait / 2

    # soon after the last: the applier gathers
    await gathered_in_one_commit(relay, applier, commits, (2, 3), applied=3, wait=wait, gap=1.5)

    relay.transactions([4])
    applier.notify()  # about 1.5 s after the one before: waits
    await asyncio.sleep(0.2)
    assert applier.applied_transactions == 5
    started = loop.time()
    with applier.urgent():  # someone waits for a position: applied at once
        await until(lambda: applier.applied_transactions == 6)
    assert loop.time() - started < wait / 2

    relay.transactions([5])
    applier.notify()
    await asyncio.sleep(0.2)
    started = loop.time()
    applier.stop()  # a stop does not wait the wait out
    await asyncio.wait_for(task, 5)
    assert loop.time() - started < wait / 2
    assert await count_rows(engine) == 4
    await engine.close()


async def test_transactions_arriving_further_apart_than_the_wait_are_applied_at_once(tmp_path):
    """`Applier._gather` waits only when the arrival that woke the applier came within the wait
    of the one before it: arrivals further apart would gather nothing, and the applier's batch
    would only be pushed next to the next arrival."""
    wait = 1.0
    relay, engine, commits, applier, task = await running_applier(tmp_path, wait)
    loop = asyncio.get_running_loop()
    relay.transactions([1])
    applier.notify()
    await until(lambda: applier.applied_transactions == 3)
    await asyncio.sleep(1.5 * wait)  # within twice the wait, further apart than it

    relay.transactions([2])
    applier.notify()
    started = loop.time()
    await until(lambda: applier.applied_transactions == 4)
    assert loop.time() - started < wait / 2  # applied at once

    # right after the last: gathers
    await gathered_in_one_commit(relay, applier, commits, (3, 4), applied=4, wait=wait, gap=0.2)
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_a_statement_written_under_a_sql_mode_the_engine_does_not_follow_stops_the_applier(tmp_path):
    """ANSI_QUOTES (and the other UNFOLLOWED_SQL_MODES) in a QUERY's sql_mode: its text means
    otherwise than the engine would read it ("4" an identifier), so the applier stops before it
    with 1235, the transactions before it applied, rather than store other rows than its master."""
    from protocol.events import SQL_MODES, encode_status_vars
    relay = Relay(tmp_path)
    relay.transactions([1, 2])
    good_end = relay.log.size
    ansi = 1 << SQL_MODES.index("ANSI_QUOTES") | 1 << SQL_MODES.index("STRICT_TRANS_TABLES")
    written = encode_status_vars(flags2=0, sql_mode=ansi)
    relay.append([relay.stream.event(Query(db="d", query="BEGIN")),
                  relay.stream.event(Query(db="d", query='INSERT INTO t VALUES ("4")', status_vars=written)),
                  relay.stream.event(Xid(4))])
    engine, _ = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    await asyncio.wait_for(applier.run(), 10)  # stops on the statement
    assert applier.last_errno == 1235 and "sql_mode ANSI_QUOTES" in applier.last_error
    assert await count_rows(engine) == 2 and applier.relay_pos == good_end
    await engine.close()


async def test_a_statement_written_under_no_auto_value_on_zero_keeps_its_zero_id(tmp_path):
    """sql_mode NO_AUTO_VALUE_ON_ZERO in a QUERY's status variables (what our master and MariaDB
    write for a statement run under it): its 0 into an AUTO_INCREMENT column is that id on the
    replica too; the same statement without the mode takes the next id."""
    from protocol.events import SQL_MODES, encode_status_vars
    relay = Relay(tmp_path)
    zero = encode_status_vars(flags2=0, sql_mode=1 << SQL_MODES.index("NO_AUTO_VALUE_ON_ZERO"))
    relay.append([relay.stream.event(Query(db="d", query="CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")),
                  relay.stream.event(Query(db="d", query="BEGIN")),
                  relay.stream.event(Query(db="d", query="INSERT INTO a VALUES (0, 1)", status_vars=zero)),
                  relay.stream.event(Query(db="d", query="INSERT INTO a VALUES (0, 2)")),
                  relay.stream.event(Xid(9))])
    engine, _ = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions >= 3)
    applier.stop()
    await asyncio.wait_for(task, 10)
    result = await engine.session(0).execute("SELECT id, v FROM d.a ORDER BY id")
    assert [tuple(r) for r in result.rows] == [(0, 1), (1, 2)] and applier.last_errno == 0
    await engine.close()


async def test_applied_up_to_is_the_position_compared_with_what_is_readable(tmp_path):
    """`_applied_up_to` compares offsets in the current file and positions across files: the
    answer of `not relay_file or _position() >= readable` for every case, the other file's
    order decided by its number."""
    from protocol.position import BinlogPosition

    relay = Relay(tmp_path)
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    try:
        for relay_file in ("", "relay-bin.000001", "relay-bin.000002"):
            for relay_pos in (4, 100, 101):
                applier.relay_file, applier.relay_pos = relay_file, relay_pos
                for readable in (BinlogPosition(f, p) for f in ("relay-bin.000001", "relay-bin.000002", "relay-bin.000010")
                                 for p in (4, 100, 101, 500)):
                    reference = not relay_file or applier._position() >= readable
                    assert applier._applied_up_to(readable) is reference, (relay_file, relay_pos, readable)
    finally:
        await engine.close()



async def test_a_delete_or_replace_is_applied_as_a_plain_statement_without_its_words_read(tmp_path, monkeypatch):
    """A QUERY that starts with DELETE or REPLACE is neither a transaction boundary nor a user
    statement (DROP USER, RENAME USER and REVOKE share its first letter): applied with no look
    at its words (`statement_kind`), as an INSERT or UPDATE is; BEGIN and a user statement
    still are."""
    asked: list[str] = []
    real_kind = applier_module.statement_kind

    def kind(sql: str) -> str:
        asked.append(sql)
        return real_kind(sql)

    monkeypatch.setattr(applier_module, "statement_kind", kind)
    relay = Relay(tmp_path)
    s = relay.stream
    relay.append([s.event(Query(db="d", query="BEGIN")), s.event(Query(db="d", query="INSERT INTO t VALUES (1), (2), (3)")),
                  s.event(Query(db="d", query="delete FROM t WHERE id = 1")),
                  s.event(Query(db="d", query="REPLACE INTO t VALUES (2)")), s.event(Xid(1))])
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 3)
    applier.stop()
    await asyncio.wait_for(task, 5)
    result = await engine.session(0).execute("SELECT id FROM d.t ORDER BY id")
    assert result.rows == [(2,), (3,)]
    # (CREATE DATABASE / TABLE: read, CREATE USER shares their first words' letter)
    assert asked == ["CREATE DATABASE d", "CREATE TABLE t (id INT PRIMARY KEY)", "BEGIN"]
    await engine.close()


async def test_a_master_that_started_again_ends_its_threads_temporary_tables(tmp_path):
    """A master thread's temporary `t` (shadowing the base `d.t`) is kept across a rotation (an FD
    whose creation time is 0) and ended by the FD of a master that started (its creation time
    set), as MariaDB's replica ends them: the master's next session with the same thread id
    writes the base table, not the crashed session's temporary one (which no DROP ended)."""
    relay = Relay(tmp_path)

    def fd(created: int) -> bytes:
        return encode_body_event(FormatDescription(server_version="10.11.19-MariaDB-log", create_timestamp=created),
                                 timestamp=1, server_id=1, log_pos=0, checksum=True)

    def statement(sql: str) -> bytes:
        return relay.stream.event(Query(db="d", query=sql, thread_id=5))

    relay.append([statement("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY)"), statement("INSERT INTO t VALUES (1)")])
    relay.append([relay.stream.event(Rotate(4, "master-bin.000002")), fd(0)])
    relay.stream.pos = 4
    relay.append([statement("INSERT INTO t VALUES (2)")])  # still the temporary t
    relay.append([relay.stream.event(Rotate(4, "master-bin.000003")), fd(1_700_000_000)])  # (a crash: no DROP)
    relay.stream.pos = 4
    relay.append([statement("INSERT INTO t VALUES (3)")])
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.relay_pos == relay.log.size)
    applier.stop()
    await asyncio.wait_for(task, 5)
    assert applier.last_error == ""
    assert (await engine.session(0).execute("SELECT id FROM d.t")).rows == [(3,)]
    assert not engine.temporary_owners()
    await engine.close()


async def test_a_new_master_or_reset_slave_ends_the_replicated_temporary_tables(tmp_path):
    """CHANGE MASTER TO another master (the relay log starts over) and RESET SLAVE end every
    replicated thread's temporary tables, as MariaDB's replica closes them; a client session's
    stay."""
    from tests.unit.test_slave_gtid import make_replication

    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    client = engine.session(1)
    await client.execute("CREATE DATABASE d")
    client.database = "d"
    await client.execute("CREATE TEMPORARY TABLE mine (id INT)")

    async def replicated() -> None:
        await engine.apply_transactions([[("CREATE TEMPORARY TABLE tmp (id INT)", StatementContext(thread_id=4, server_id=1), "d")]], {})
        assert len(engine.temporary_owners()) == 2

    await replicated()
    rep.change_master({"host": "h2"})
    await rep.persist_reset()
    assert engine.temporary_owners() == {client.temporary_owner}
    await replicated()
    rep.reset(False, default_period=30)
    await rep.persist_reset()
    assert engine.temporary_owners() == {client.temporary_owner}
    await client.close()
    await engine.close()
