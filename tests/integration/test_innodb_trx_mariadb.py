"""information_schema.INNODB_TRX, INNODB_LOCKS and INNODB_LOCK_WAITS (1109 "Unknown table"
before), against a live MariaDB 10.11: a transaction that wrote, a second session's write
waiting behind it, and the DBA's query joining the waits to the transactions
(who blocks whom). Here the wait is for the engine's one writer lock, there for InnoDB's row
lock: the lock rows differ in kind (TABLE on every table here, RECORD there), the rest is
compared. MariaDB refreshes these views at most every 0.1 s, hence the pauses."""

from __future__ import annotations

import threading
import time

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))",
         "INSERT INTO d.t VALUES (1, 'a'), (2, 'b')", "CREATE USER 'mon'@'%' IDENTIFIED BY 'pw'"]

TRX = ("SELECT trx_id > 0, trx_state, trx_started <= NOW(), trx_requested_lock_id IS NOT NULL,"
       " trx_wait_started IS NOT NULL, trx_mysql_thread_id, trx_query, trx_concurrency_tickets,"
       " trx_isolation_level, trx_unique_checks, trx_foreign_key_checks, trx_last_foreign_key_error,"
       " trx_is_read_only, trx_autocommit_non_locking"
       " FROM information_schema.INNODB_TRX ORDER BY trx_mysql_thread_id")
BLOCKERS = ("SELECT r.trx_mysql_thread_id, r.trx_query, b.trx_mysql_thread_id, w.requested_lock_id = l.lock_id,"
            " l.lock_mode FROM information_schema.INNODB_LOCK_WAITS w"
            " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
            " JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
            " JOIN information_schema.INNODB_LOCKS l ON l.lock_trx_id = w.requesting_trx_id")


def scenario(server) -> dict[str, object]:
    for sql in SETUP:
        server.query(sql)
    holder, waiter, monitor = (server.connect("d") for _ in range(3))
    names = {holder.thread_id(): "holder", waiter.thread_id(): "waiter"}

    def look(sql: str) -> list[tuple]:
        time.sleep(0.25)
        with monitor.cursor() as cur:
            cur.execute(sql)
            return [tuple(names.get(v, v) if isinstance(v, int) and n in (5, 0, 2) else v
                          for n, v in enumerate(row)) for row in cur.fetchall()]

    seen: dict[str, object] = {}
    for conn in (holder, waiter):
        conn.cursor().execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    holder.cursor().execute("BEGIN")
    holder.cursor().execute("UPDATE t SET v = 'x' WHERE id = 1")
    seen["one writer"] = look(TRX)
    thread = threading.Thread(target=lambda: waiter.cursor().execute("UPDATE t SET v = 'y' WHERE id = 1"))
    thread.start()
    try:
        seen["two"] = look(TRX)
        seen["blockers"] = look(BLOCKERS)
        seen["locks"] = look("SELECT count(*), count(DISTINCT lock_trx_id) FROM information_schema.INNODB_LOCKS")
    finally:
        holder.cursor().execute("COMMIT")
        thread.join(60)
    seen["none"] = look(TRX)
    with pymysql.connect(host="127.0.0.1", port=server.port, user="mon", password="pw") as denied:
        with pytest.raises(pymysql.err.OperationalError) as e:
            denied.cursor().execute("SELECT * FROM information_schema.INNODB_TRX")
        seen["without PROCESS"] = e.value.args
    for conn in (holder, waiter, monitor):
        conn.close()
    return seen


def test_transactions_and_lock_waits_as_mariadb_lists_them(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = scenario(reference), scenario(master)
        assert ours == theirs
