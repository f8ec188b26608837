"""The replicated transactions' sessions share one `SessionFunctions`, renewed for each: nothing
of one transaction reaches the next, and one left holding a named lock keeps its own."""

from __future__ import annotations

from engine import Engine, StatementContext, functions


def _ctx() -> StatementContext:
    return StatementContext(timestamp=1_700_000_000)


async def _engine(tmp_path) -> Engine:
    engine = await Engine.open(tmp_path / "db", readers=1)
    session = engine.session(1)
    await session.execute("CREATE DATABASE d")
    await session.execute("CREATE TABLE d.t (id INT PRIMARY KEY, v BIGINT)")
    await session.close()
    return engine


async def _rows(engine: Engine) -> list[tuple]:
    session = engine.session(1)
    result = await session.execute("SELECT id, v FROM d.t ORDER BY id")
    await session.close()
    return [tuple(row) for row in result.rows]


def test_renew_leaves_the_state_of_a_fresh_one():
    fresh = functions.SessionFunctions(functions.RandState(5, 6))
    used = functions.SessionFunctions(functions.RandState(1, 2))
    used.rand.next()
    used.set_last_id, used.upserts_changed, used.upserts_unchanged = 7, 3, 4
    used.stored_rows["x"] = 2
    used.sleeping = True
    used.interrupt()
    used.renew(functions.RandState(5, 6))
    plain = {k: v for k, v in vars(fresh).items() if k not in ("rand", "interrupted", "guard")}
    assert {k: vars(used)[k] for k in plain} == plain and vars(used).keys() == vars(fresh).keys()
    assert (used.rand.seed1, used.rand.seed2) == (fresh.rand.seed1, fresh.rand.seed2)
    assert not used.interrupted.is_set()


def test_renewing_a_state_with_nothing_to_undo_takes_no_lock():
    """The replicated transaction's renew and its named-lock check, where nothing was
    interrupted, no statement runs and no named lock is held (every replicated transaction but
    rare ones): answered without taking the state's locks or the named locks' (each held here by
    another thread the whole time)."""
    import threading

    fx = functions.SessionFunctions(functions.RandState(1, 2))
    locks = functions.NamedLocks()  # (the server's LOCKS may hold other tests' named locks)
    done = threading.Event()

    def renew_and_check() -> None:
        fx.renew(functions.RandState(5, 6))
        assert not locks.holds_any(fx)
        done.set()

    held = (fx.guard, fx.interrupted._cond, locks._cond)
    for lock in held:
        lock.acquire()
    try:
        worker = threading.Thread(target=renew_and_check)
        worker.start()
        finished = done.wait(5.0)
    finally:
        for lock in held:
            lock.release()
    worker.join()
    assert finished and (fx.rand.seed1, fx.rand.seed2) == (5, 6)


async def test_replicated_transactions_share_one_renewed_functions_state(tmp_path):
    engine = await _engine(tmp_path)
    try:
        await engine.apply_transactions(
            [[("INSERT INTO t VALUES (1, LAST_INSERT_ID(41))", _ctx(), "d")],
             [("INSERT INTO t VALUES (2, LAST_INSERT_ID())", _ctx(), "d")],
             [("INSERT INTO t VALUES (3, ROW_COUNT())", _ctx(), "d")]],
            {"pos": "1"})
        fx = engine._replicated_fx
        assert fx is not None and fx.set_last_id is None
        fx.interrupt()  # a KILL QUERY that came too late: not the next transaction's
        await engine.apply_transactions([[("INSERT INTO t VALUES (4, SLEEP(0))", _ctx(), "d")]], {"pos": "2"})
        assert engine._replicated_fx is fx and not fx.interrupted.is_set()
        # each transaction started as a fresh session: LAST_INSERT_ID() and ROW_COUNT() of its own
        assert await _rows(engine) == [(1, 41), (2, 0), (3, -1), (4, 0)]
    finally:
        await engine.close()


async def test_a_transaction_that_holds_a_named_lock_keeps_its_functions_state(tmp_path):
    engine = await _engine(tmp_path)
    try:
        await engine.apply_transactions([[("INSERT INTO t VALUES (1, GET_LOCK('r', 0))", _ctx(), "d")]], {"pos": "1"})
        holder = engine._replicated_fx
        assert holder is not None and functions.LOCKS.holds_any(holder)
        # the next transaction is another session: the lock is not its own to take again
        await engine.apply_transactions([[("INSERT INTO t VALUES (2, GET_LOCK('r', 0))", _ctx(), "d")]], {"pos": "2"})
        assert engine._replicated_fx is not holder and not functions.LOCKS.holds_any(engine._replicated_fx)
        assert await _rows(engine) == [(1, 1), (2, 0)]
    finally:
        functions.LOCKS.release_all(holder)
        await engine.close()


async def test_a_failed_transaction_hands_its_functions_state_to_no_other(tmp_path):
    engine = await _engine(tmp_path)
    try:
        await engine.apply_transactions([[("INSERT INTO t VALUES (1, 1)", _ctx(), "d")]], {"pos": "1"})
        first = engine._replicated_fx
        try:
            await engine.apply_transactions([[("INSERT INTO t VALUES (1, 2)", _ctx(), "d")]], {"pos": "2"})
        except Exception:  # noqa: BLE001 - the duplicate key
            pass
        else:
            raise AssertionError("a duplicate key must fail")
        assert engine._replicated_fx is None
        await engine.apply_transactions([[("INSERT INTO t VALUES (2, 2)", _ctx(), "d")]], {"pos": "3"})
        assert engine._replicated_fx is not first and await _rows(engine) == [(1, 1), (2, 2)]
    finally:
        await engine.close()


async def test_the_replicated_transactions_rand_goes_on_from_the_last_seeds(tmp_path):
    """As the slave SQL thread's generator: a RAND event's seeds set it, and a later RAND()
    without seeds of its own (no RAND event) goes on from them, not from a new clock seed."""
    engine = await _engine(tmp_path)
    try:
        seeded = StatementContext(timestamp=1_700_000_000, rand_seed=(123456, 654321))
        await engine.apply_transactions(
            [[("INSERT INTO t VALUES (1, FLOOR(RAND() * 1000000000))", seeded, "d")],
             [("INSERT INTO t VALUES (2, FLOOR(RAND() * 1000000000))", _ctx(), "d")]],
            {"pos": "1"})
        rand = functions.RandState(123456, 654321)
        assert await _rows(engine) == [(1, int(rand.next() * 1000000000)), (2, int(rand.next() * 1000000000))]
    finally:
        await engine.close()
