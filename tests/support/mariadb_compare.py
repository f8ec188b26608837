"""The same statements on a stock MariaDB 10.11 and on our master, answers compared: a fresh
pair of servers, a replay of (account, statement) steps over one connection per account, and
prepared statements' counts and ids (mysql-connector-python, COM_STMT_EXECUTE); result column
definitions in full over the text and the binary protocol (`defined_answers`); a replica's rows
polled until it has made them (`rows_or_none`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pymysql

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer


@contextmanager
def mariadb_and_ours(base: Path, mariadb_id: int = 1, ours_id: int = 1,
                     mariadb_extra: Sequence[str] = ()) -> Iterator[tuple[MariaDBServer, Daemon]]:
    """A MariaDB (started with `mariadb_extra` options) and our master with these server_ids,
    stopped on the way out."""
    mariadb = MariaDBServer(base / "mdb", server_id=mariadb_id, extra=mariadb_extra)
    ours = Daemon("master", base / "ours", [f"--server-id={ours_id}"])
    try:
        mariadb.start()
        ours.start()
        yield mariadb, ours
    finally:
        ours.stop()
        mariadb.stop()


def answer(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """("error", code, SQLSTATE, message) or ("rows", rows) or ("ok",)."""
    with conn.cursor() as cur:
        try:
            cur.execute(sql)
        except pymysql.MySQLError as exc:
            return ("error", exc.args[0], getattr(exc, "sqlstate", None), exc.args[1])
        if cur.description is None:
            return ("ok",)
        return ("rows", tuple(tuple(row) for row in cur.fetchall()))


def ok_answer(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """("error", code, message), or the statement's affected-row count, rows, the OK's info
    ("Records: ..."), its warning count and the warnings SHOW WARNINGS lists."""
    with conn.cursor() as cur:
        try:
            affected = cur.execute(sql)
        except pymysql.MySQLError as exc:
            return ("error", exc.args[0], exc.args[1])
        result = conn._result  # (PyMySQL keeps the OK's warning count and info there)
        rows = cur.fetchall() if cur.description else ()
        shown = ()
        if result.warning_count:
            cur.execute("SHOW WARNINGS")
            shown = cur.fetchall()
        return (affected, rows, result.message, result.warning_count, shown)


def ok_answers(server: Any, setup: Sequence[str], statements: Sequence[str], database: str = "d") -> list[tuple]:
    """`setup` run on `server`, then (statement, `ok_answer`) for each statement on one connection
    to `database`."""
    for sql in setup:
        server.query(sql)
    conn = server.connect(database)
    try:
        return [(sql, ok_answer(conn, sql)) for sql in statements]
    finally:
        conn.close()


def warned_answers(server: Any, statements: Sequence[str], listed: Callable[[str, int | None], bool],
                   database: str = "d") -> list[tuple]:
    """For each statement on one connection: (statement, its rows or ("ok",) or ("error", code,
    message), its OK's / EOF's warning count (None for an error), what SHOW WARNINGS lists after
    it where `listed(statement, count)`, else ())."""
    conn = server.connect(database)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for sql in statements:
                try:
                    cur.execute(sql)
                    answer = tuple(cur.fetchall()) if cur.description else ("ok",)
                    count = conn._result.warning_count  # (PyMySQL keeps the OK's / EOF's count there)
                except pymysql.MySQLError as exc:
                    answer, count = ("error", exc.args[0], exc.args[1]), None
                shown = ()
                if listed(sql, count):
                    cur.execute("SHOW WARNINGS")
                    shown = tuple(cur.fetchall())
                out.append((sql, answer, count, shown))
        return out
    finally:
        conn.close()


def described_answers(port: int, database: str, queries: Sequence[str]) -> list[tuple]:
    """For each query on one connection (PyMySQL, autocommit): (query, "error", code, message),
    or (query, the rows or the affected count, each result column's (name, type code,
    decimals), the statement's warnings as SHOW WARNINGS lists them)."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=database, autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for sql in queries:
                try:
                    cur.execute(sql)
                except pymysql.MySQLError as exc:
                    out.append((sql, "error", exc.args[0], exc.args[1]))
                    continue
                rows = cur.fetchall() if cur.description else cur.rowcount
                columns = [(f.name, f.type_code, f.scale) for f in cur._result.fields] if cur.description else []
                warnings = ()
                if cur._result.warning_count:
                    cur.execute("SHOW WARNINGS")
                    warnings = cur.fetchall()
                out.append((sql, rows, columns, warnings))
    finally:
        conn.close()
    return out


def both_described(reference: Any, ours: Any, setup: Sequence[str], queries: Sequence[str],
                   database: str = "d") -> tuple[list[tuple], list[tuple]]:
    """`setup` run on each server, then `described_answers` of `queries` on `database`: MariaDB's
    list, then ours."""
    answers = []
    for server in (reference, ours):
        for sql in setup:
            server.query(sql)
        answers.append(described_answers(server.port, database, queries))
    return answers[0], answers[1]


def rows_or_none(server: Any, sql: str) -> list[tuple] | None:
    """`sql`'s rows on `server`, None while they cannot be read (a replica that has not made the
    table yet)."""
    try:
        return server.query(sql)
    except Exception:  # noqa: BLE001 - not made yet
        return None


def assert_same_rows(reference: Any, master: Any, replicas: Sequence[Any], rows: str) -> None:
    """`rows` on our master as on the reference MariaDB, and on each replica once it has them."""
    want = reference.query(rows)
    assert master.query(rows) == want
    for replica in replicas:
        wait_for(lambda r=replica: rows_or_none(r, rows) == want, 90,
                 message=lambda r=replica: f"{r} to hold the master's rows")


# The server character set ours has (Debian's packaged MariaDB configures the same): a reference
# MariaDB started with these options greets a client with the collation ours greets it with.
OUR_SERVER_CHARSET = ("--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")


def both_answer(reference: Any, ours: Any, setup: Sequence[str], queries: Sequence[str],
                database: str = "d") -> tuple[list[tuple], list[tuple]]:
    """`setup` run on each server, then (query, `answer`) for each query on one connection to
    `database`: MariaDB's list, then ours."""
    answers = []
    for server in (reference, ours):
        for sql in setup:
            server.query(sql)
        conn = server.connect(database)
        try:
            answers.append([(sql, answer(conn, sql)) for sql in queries])
        finally:
            conn.close()
    return answers[0], answers[1]


def replay(server: Any, setup: Sequence[str], steps: Sequence[tuple[str, str]],
           passwords: dict[str, str]) -> list[tuple]:
    """`setup` as root, then each step's answer (`answer`) on its account's connection ("root",
    or one of `passwords`)."""
    for sql in setup:
        server.query(sql)
    conns = {"root": server.connect()}
    conns.update({user: server.connect(user=user, password=pw) for user, pw in passwords.items()})
    try:
        return [answer(conns[who], sql) for who, sql in steps]
    finally:
        for conn in conns.values():
            conn.close()


def differences(steps: Sequence[tuple[str, str]], theirs: list[tuple], mine: list[tuple]) -> str:
    """The steps whose answers differ, MariaDB's then ours ("" when none)."""
    return "\n".join(f"{who}: {sql}\n    MariaDB {t}\n    ours    {m}"
                     for (who, sql), t, m in zip(steps, theirs, mine, strict=True) if t != m)


def each_askers_answers(base: Path, setup: Sequence[str], *askers) -> list[tuple[list[tuple], list[tuple]]]:
    """A fresh MariaDB and our master, `setup` run on each, then for each asker (a function of a
    port: its answers as a list) MariaDB's answers and ours."""
    with mariadb_and_ours(base) as (reference, ours):
        for server in (reference, ours):
            for sql in setup:
                server.query(sql)
        return [(ask(reference.port), ask(ours.port)) for ask in askers]


def answer_differences(theirs: list[tuple], ours: list[tuple]) -> str:
    """The (statement, ...) answers that differ, MariaDB's then ours ("" when none)."""
    return "\n".join(f"{t[0]}\n    MariaDB {t[1:]}\n    ours    {o[1:]}"
                     for t, o in zip(theirs, ours, strict=True) if t != o)


def connector_connection(port: int, database: str):
    """A mysql-connector-python connection as root, autocommit, its pure-Python protocol (the one
    whose prepared cursor speaks COM_STMT_EXECUTE)."""
    import mysql.connector

    return mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database=database,
                                   use_pure=True, autocommit=True)


def prepared_answers(port: int, database: str, statements: Sequence[tuple[str, tuple]],
                     rows: bool = False) -> list[tuple]:
    """(statement, affected rows, the client's lastrowid) for each prepared statement executed with
    its values, autocommit, through mysql-connector-python's pure-Python protocol (COM_STMT_EXECUTE:
    the values' Python types choose their MySQL types); `rows`: (statement, values, the rows it
    returned) instead."""
    conn = connector_connection(port, database)
    try:
        cur = conn.cursor(prepared=True)
        out = []
        for sql, values in statements:
            cur.execute(sql, values)
            out.append((sql, values, [tuple(row) for row in cur.fetchall()]) if rows
                       else (sql, cur.rowcount, cur.lastrowid))
        return out
    finally:
        conn.close()


def id_answers(port: int, database: str, statements: Sequence[str]) -> list[tuple]:
    """(statement, affected rows, the client's lastrowid, LAST_INSERT_ID() after it), or
    (statement, "error", code, LAST_INSERT_ID() after it), for each statement through PyMySQL's
    text protocol, autocommit."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database=database, autocommit=True)
    out = []
    try:
        with conn.cursor() as cur:
            for sql in statements:
                try:
                    answer = (cur.execute(sql), cur.lastrowid)
                except pymysql.MySQLError as exc:
                    answer = ("error", exc.args[0])
                cur.execute("SELECT LAST_INSERT_ID()")
                out.append((sql, *answer, cur.fetchone()[0]))
        return out
    finally:
        conn.close()


@contextmanager
def reference_ours_and_replica(base: Path, reference_log_bin: str | None = None
                               ) -> Iterator[tuple[MariaDBServer, Daemon, MariaDBServer]]:
    """A MariaDB to compare with (without a binlog, unless `reference_log_bin` names one: then
    its "unsafe statement" notes too), our master with the replication account, and a MariaDB
    replica following it by GTID; stopped on the way out."""
    with reference_ours_and_replicas(base, reference_log_bin=reference_log_bin) as (reference, ours, (replica,)):
        yield reference, ours, replica


@contextmanager
def reference_ours_and_replicas(base: Path, our_slave: bool = False, reference_log_bin: str | None = None,
                                master_args: Sequence[str] = ()) -> Iterator[tuple[MariaDBServer, Daemon, list]]:
    """`reference_ours_and_replica`'s servers, the replicas of our master in a list: the MariaDB
    replica, then (`our_slave`) our slave following it too; `master_args`: our master's options
    besides its server id."""
    from tests.support.failover import REPL_PASSWORD, REPL_USER, attach

    started: list[Any] = []
    try:
        reference = MariaDBServer(base / "mdb", log_bin=reference_log_bin).start()
        started.append(reference)
        ours = Daemon("master", base / "ours", ["--server-id=1", *master_args]).start()
        started.append(ours)
        ours.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
        ours.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'")
        replicas: list[Any] = [MariaDBServer(base / "replica", server_id=2).start()]
        started.append(replicas[0])
        if our_slave:
            replicas.append(Daemon("slave", base / "ours-slave", ["--server-id=3"]).start())
            started.append(replicas[1])
        for replica in replicas:
            attach(replica.port, ours.port)
        yield reference, ours, replicas
    finally:
        for server in reversed(started):
            server.stop()


def _definition(packet: bytes) -> tuple:
    """A column definition packet as (name, type code, length, decimals, flags, charsetnr)."""
    from pymysql.protocol import FieldDescriptorPacket

    field = FieldDescriptorPacket(packet, "utf8")
    return (field.name, field.type_code, field.length, field.scale, field.flags, field.charsetnr)


def _prepared_execution(conn: pymysql.connections.Connection, sql: str, block: bytes) -> tuple:
    """COM_STMT_PREPARE of `sql`, COM_STMT_EXECUTE with the parameter block `block`, then
    COM_STMT_CLOSE: (the prepare answer's column definitions, the execute answer's, its rows
    decoded by those)."""
    from protocol.binary import decode_binary_row
    from protocol.messages import ColumnDefinition

    def read() -> bytes:
        return conn._read_packet().get_all_data()

    def definitions(count: int) -> list[bytes]:
        packets = [read() for _ in range(count)]
        if count:
            read()  # EOF (PyMySQL does not ask CLIENT_DEPRECATE_EOF)
        return packets

    conn._execute_command(0x16, sql.encode())
    first = read()
    stmt_id = first[1:5]
    columns, count = int.from_bytes(first[5:7], "little"), int.from_bytes(first[7:9], "little")
    definitions(count)
    prepared = [_definition(p) for p in definitions(columns)]
    conn._execute_command(0x17, stmt_id + b"\x00" + (1).to_bytes(4, "little") + block)
    head = read()
    if head[0] == 0:
        executed, rows = [], []
    else:
        executed = [_definition(p) for p in definitions(head[0])]
        decoders = [ColumnDefinition(name, type=code, flags=flags, decimals=decimals)
                    for name, code, _, decimals, flags, _ in executed]
        rows = []
        while (payload := read())[0] != 0xFE or len(payload) >= 9:
            rows.append(decode_binary_row(payload, decoders))
    conn._execute_command(0x19, stmt_id)
    return (prepared, executed, rows)


def _binary_answer(conn: pymysql.connections.Connection, sql: str, params: Sequence[tuple[int, Any]]) -> tuple:
    """COM_STMT_PREPARE then COM_STMT_EXECUTE of `sql` with `params` ((MySQL type code, value),
    sent with that type): ("error", code, message) or (the prepare answer's column definitions,
    the execute answer's, its rows decoded by those)."""
    from protocol.binary import ParamType, encode_execute_params

    types = [ParamType(code) for code, _ in params]
    try:
        return _prepared_execution(conn, sql, encode_execute_params(types, [value for _, value in params]))
    except pymysql.MySQLError as exc:
        return ("error", exc.args[0], exc.args[1])


def raw_parameter_answers(port: int, database: str, sql: str, type_code: int, texts: Sequence[bytes]) -> list[tuple]:
    """`sql` (one placeholder) executed once per text, each on a fresh connection (MariaDB's SHOW
    WARNINGS may keep an older list), the text sent as the parameter's bytes under `type_code`
    whatever it holds (a DECIMAL that is no number: `encode_execute_params` refuses one): (text,
    rows decoded by the execute answer's column definitions, SHOW WARNINGS), or (text, "error",
    code, message)."""
    from protocol.packets import encode_lenenc_bytes

    out: list[tuple] = []
    for text in texts:
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=database,
                               autocommit=True)
        try:
            _, _, rows = _prepared_execution(conn, sql, b"\x00\x01" + bytes((type_code, 0)) + encode_lenenc_bytes(text))
            with conn.cursor() as cur:
                cur.execute("SHOW WARNINGS")
                out.append((text, rows, cur.fetchall()))
        except pymysql.MySQLError as exc:
            out.append((text, "error", exc.args[0], exc.args[1]))
        finally:
            conn.close()
    return out


def defined_answers(port: int, database: str, queries: Sequence[str | tuple[str, Sequence[tuple[int, Any]]]]
                    ) -> list[tuple]:
    """Each query's result columns in full, (name, type code, length, decimals, flags, charsetnr),
    with its rows: over the text protocol (PyMySQL; a query given with parameters, (sql, ((MySQL
    type code, value), ...)), runs only prepared), then prepared (COM_STMT_PREPARE's definitions,
    COM_STMT_EXECUTE's, the binary rows decoded). An error is ("error", code, message)."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=database, autocommit=True)
    out: list[tuple] = []
    try:
        for query in queries:
            sql, params = (query, ()) if isinstance(query, str) else query
            text: tuple = ()
            if not params:
                with conn.cursor() as cur:
                    try:
                        cur.execute(sql)
                        text = ([(f.name, f.type_code, f.length, f.scale, f.flags, f.charsetnr)
                                 for f in getattr(cur._result, "fields", None) or ()], cur.fetchall())
                    except pymysql.MySQLError as exc:
                        text = ("error", exc.args[0], exc.args[1])
            out.append((sql, text, _binary_answer(conn, sql, params)))
    finally:
        conn.close()
    return out
