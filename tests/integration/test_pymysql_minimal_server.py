"""Stock clients (PyMySQL, the `mariadb` command-line client) against a minimal asyncio server
assembled in this test from `protocol/` only: login with mysql_native_password, a query with
rows including NULL, an ERR with the right code and SQLSTATE, a wrong password refused with 1045.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import pymysql
import pytest

from protocol.auth import make_salt, native_password_hash
from protocol.connection import NEED_DATA, ConnectionClosed, ServerConnection
from protocol.errors import (
    ER_ACCESS_DENIED_ERROR,
    ER_NO_SUCH_TABLE,
    ER_PARSE_ERROR,
    ER_UNKNOWN_COM_ERROR,
    ProtocolError,
)
from protocol.messages import (
    ERR,
    OK,
    ComInitDB,
    ComPing,
    ComQuery,
    ComQuit,
    FieldType,
    HandshakeResponse,
    ResultSet,
    column,
)
from tests.support.net import free_port

USERS = {"app": native_password_hash("s3cret"), "nopw": native_password_hash("")}
PEOPLE = ResultSet(
    [column("id", FieldType.LONGLONG), column("name"), column("score", FieldType.DOUBLE)],
    [(1, "ada", 1.5), (2, None, None), (3, "grace", -2.25)],
)


def answer(sql: str) -> OK | ERR | ResultSet:
    """A toy SQL 'engine': just enough statements for the clients under test."""
    q = " ".join(sql.strip().rstrip(";").split()).lower()
    if q == "select @@version_comment limit 1":
        return ResultSet([column("@@version_comment")], [("semisync test server",)])
    if q == "select * from people":
        return PEOPLE
    if q == "select * from missing":
        return ERR.from_error(ER_NO_SUCH_TABLE, "test", "missing")
    if q.startswith(("set ", "use ")) or q in ("commit", "rollback", "begin"):
        return OK()
    if q == "select 1":
        return ResultSet([column("1", FieldType.LONGLONG)], [(1,)])
    return ERR.from_error(ER_PARSE_ERROR, f"near '{sql[:40]}' at line 1")


class MiniServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.next_id = 1
        self.logins: list[HandshakeResponse] = []
        self.queries: list[str] = []
        self._server: asyncio.base_events.Server | None = None

    async def __aenter__(self) -> MiniServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = ServerConnection(self.next_id, "10.11.99-semisync-test", make_salt(os.urandom(20)))
        self.next_id += 1
        writer.write(conn.greeting())
        try:
            while True:
                try:
                    event = conn.next_event()
                except ProtocolError as exc:
                    writer.write(conn.send(ERR.from_exception(exc)))
                    if exc.fatal:
                        break
                    continue
                if event is NEED_DATA:
                    conn.receive_data(await reader.read(65536))
                    continue
                if isinstance(event, ConnectionClosed | ComQuit):
                    break
                writer.write(self._respond(conn, event))
                await writer.drain()
                if conn.state.value == "closed":
                    break
        finally:
            writer.close()  # flushes what is buffered (a final ERR) before closing

    def _respond(self, conn: ServerConnection, event: object) -> bytes:
        if isinstance(event, HandshakeResponse):
            self.logins.append(event)
            stored = USERS.get(event.user)
            if stored is None or not conn.verify_password(stored):
                using = "YES" if event.auth_response else "NO"
                return conn.send(ERR.from_error(ER_ACCESS_DENIED_ERROR, event.user, "localhost", using))
            return conn.send(OK())
        if isinstance(event, ComQuery):
            self.queries.append(event.sql)
            return conn.send(answer(event.sql))
        if isinstance(event, ComPing | ComInitDB):
            return conn.send(OK())
        return conn.send(ERR.from_error(ER_UNKNOWN_COM_ERROR))


def _pymysql_session(port: int) -> dict:
    out: dict = {}
    db = pymysql.connect(host="127.0.0.1", port=port, user="app", password="s3cret", connect_timeout=10)
    try:
        with db.cursor() as cur:
            cur.execute("SELECT * FROM people")
            out["rows"] = cur.fetchall()
            out["description"] = [(d[0], d[1]) for d in cur.description]
            try:
                cur.execute("SELECT * FROM missing")
            except pymysql.err.ProgrammingError as exc:
                out["missing"] = exc.args
            cur.execute("SELECT 1")
            out["after_error"] = cur.fetchall()
        db.ping(reconnect=False)
    finally:
        db.close()
    try:
        pymysql.connect(host="127.0.0.1", port=port, user="app", password="wrong", connect_timeout=10)
    except pymysql.err.OperationalError as exc:
        out["wrong_password"] = exc.args
    try:
        pymysql.connect(host="127.0.0.1", port=port, user="nobody", password="", connect_timeout=10)
    except pymysql.err.OperationalError as exc:
        out["no_such_user"] = exc.args
    return out


async def test_pymysql_login_query_null_and_errors():
    async with MiniServer() as server:
        out = await asyncio.to_thread(_pymysql_session, server.port)
    assert out["rows"] == ((1, "ada", 1.5), (2, None, None), (3, "grace", -2.25))
    assert out["description"] == [("id", FieldType.LONGLONG), ("name", FieldType.VAR_STRING), ("score", FieldType.DOUBLE)]
    assert out["missing"] == (1146, "Table 'test.missing' doesn't exist")
    assert out["after_error"] == ((1,),)
    assert out["wrong_password"][0] == 1045
    assert "using password: YES" in out["wrong_password"][1]
    assert out["no_such_user"][0] == 1045
    assert server.logins[0].user == "app"
    assert server.logins[0].attributes and server.logins[0].attributes.get("_client_name") == "pymysql"


def _mariadb(port: int, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{port}", *args],
        capture_output=True, text=True, timeout=60,
    )


@pytest.mark.skipif(shutil.which("mariadb") is None, reason="needs the mariadb client (make test installs it)")
async def test_mariadb_cli_query_error_and_wrong_password():
    async with MiniServer() as server:
        ok = await asyncio.to_thread(_mariadb, server.port, "-uapp", "-ps3cret", "-e", "SELECT * FROM people")
        missing = await asyncio.to_thread(_mariadb, server.port, "-uapp", "-ps3cret", "-e", "SELECT * FROM missing")
        wrong = await asyncio.to_thread(_mariadb, server.port, "-uapp", "-pnope", "-e", "SELECT 1")
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.splitlines()
    assert lines[0].split("\t") == ["id", "name", "score"]
    assert lines[1:] == ["1\tada\t1.5", "2\tNULL\tNULL", "3\tgrace\t-2.25"]
    assert missing.returncode == 1
    assert "ERROR 1146 (42S02)" in missing.stderr and "Table 'test.missing' doesn't exist" in missing.stderr
    assert wrong.returncode == 1 and "ERROR 1045 (28000)" in wrong.stderr
    assert server.queries == ["SELECT * FROM people", "SELECT * FROM missing"]


def _mariadb_interactive(port: int, script: bytes) -> bytes:
    """Run the client on a pseudo-terminal (interactive mode), type `script`, return its output."""
    import pty
    import select
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{port}", "-uapp", "-ps3cret"],
        stdin=slave, stdout=slave, stderr=slave, close_fds=True,
    )
    os.close(slave)
    os.write(master, script)
    out = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait()
        os.close(master)
    return out


@pytest.mark.skipif(shutil.which("mariadb") is None, reason="needs the mariadb client (make test installs it)")
async def test_mariadb_cli_interactive_asks_version_comment_first():
    async with MiniServer() as server:
        out = await asyncio.to_thread(_mariadb_interactive, server.port, b"SELECT * FROM people;\nquit\n")
    assert server.queries[0].lower() == "select @@version_comment limit 1"
    assert server.queries[-1] == "SELECT * FROM people"
    text = out.decode(errors="replace")
    assert "semisync test server" in text  # the banner shows @@version_comment
    assert "| grace |" in text and "NULL" in text
