"""What a client negotiates with the server shell beyond the login, as MariaDB 10.11 answers it
(PHP's mysqlnd, Node's mysql and Perl's DBD::mysql against MariaDB and ours:
tests/integration/test_php_mysqlnd_mariadb.py, test_node_mysql_mariadb.py,
test_perl_dbd_mysql_mariadb.py): COM_SET_OPTION turning multi-statements on and off, the
greeting's collation, the collation column definitions name (the handshake's, SET NAMES ...
COLLATE's, character_set_results' default), SHOW WARNINGS' and SHOW VARIABLES / STATUS' column
definitions, where a second statement sent without multi-statements is a syntax error, and what
a syntax error in one statement of a multi-statement quotes (Ruby's mysql2 and Go's
go-sql-driver: tests/integration/test_ruby_mysql2_mariadb.py, test_go_sql_driver_mariadb.py)."""

from __future__ import annotations

import pymysql
import pytest

from protocol.errors import ER_PARSE_ERROR, ER_UNKNOWN_COM_ERROR
from tests.support.server_shell import ShellServer

COM_SET_OPTION = 0x1B


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("negotiation")) as server:
        yield server


def _set_option(conn: pymysql.Connection, option: int) -> bytes:
    """COM_SET_OPTION's answer, raw (PyMySQL has no call for it)."""
    conn._execute_command(COM_SET_OPTION, option.to_bytes(2, "little"))
    return conn._read_packet().get_all_data()


def _set_options_counted(conn: pymysql.Connection) -> int:
    with conn.cursor() as cur:
        cur.execute("SHOW SESSION STATUS LIKE 'Com_set_option'")
        return int(cur.fetchone()[1])


def _described(conn: pymysql.Connection, sql: str) -> list[tuple[int, int]]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return [(f.charsetnr, f.length) for f in cur._result.fields]


def test_set_option_turns_multi_statements_on_and_off(shell):
    with shell.connect(autocommit=True) as conn:
        before = _set_options_counted(conn)
        eof = _set_option(conn, 0)
        assert eof == b"\xfe\x00\x00\x02\x00"  # an EOF, autocommit (PyMySQL sets no DEPRECATE_EOF)
        with conn.cursor() as cur:
            cur.execute("SELECT 1; SELECT 2")
            assert cur.fetchall() == ((1,),) and cur.nextset() and cur.fetchall() == ((2,),)
        assert _set_option(conn, 1) == eof
        with pytest.raises(pymysql.err.ProgrammingError) as refused, conn.cursor() as cur:
            cur.execute("SELECT 1; SELECT 2")
        assert refused.value.args[0] == ER_PARSE_ERROR.code
        assert refused.value.args[1].endswith("near 'SELECT 2' at line 1")  # (mysqld's ';' ends one)
        with pytest.raises(pymysql.err.OperationalError) as unknown:
            _set_option(conn, 2)  # no such option
        assert unknown.value.args[0] == ER_UNKNOWN_COM_ERROR.code
        assert _set_options_counted(conn) == before + 3  # (mysqld counts the command as a SET)


def test_a_syntax_error_at_a_semicolon_inside_a_statement_stays_there(shell):
    with shell.connect() as conn, conn.cursor() as cur:
        for sql, near in [("SELECT 1 FROM; x", "; x"), ("SELECT (1; 2)", "; 2)"), ("SELECT 1 + ; x", "; x"),
                          ("SELECT 'a' ; x", "x")]:
            with pytest.raises(pymysql.err.ProgrammingError) as refused:
                cur.execute(sql)
            assert refused.value.args[1].endswith(f"near '{near}' at line 1"), sql


def test_the_greeting_names_collation_server(shell):
    with shell.connect() as conn:
        assert conn.server_charset == "utf8mb4" and conn.server_language == 45  # utf8mb4_general_ci


def test_column_definitions_name_the_connections_collation(shell):
    with shell.connect(charset="utf8mb3") as conn:
        assert _described(conn, "SELECT 'x', 'x' AS b") == [(33, 3), (33, 3)]
    with shell.connect(charset="utf8mb4", collation="utf8mb4_unicode_ci") as conn:
        assert _described(conn, "SELECT 'x'") == [(224, 4)]
        conn.query("SET NAMES utf8mb3 COLLATE utf8mb3_unicode_ci")
        assert _described(conn, "SELECT 'x'") == [(192, 3)]
        conn.query("SET character_set_results = utf8mb4")  # its default collation
        assert _described(conn, "SELECT 'x'") == [(45, 4)]
        conn.query("SET NAMES utf8mb4")
        assert _described(conn, "SELECT 'x'") == [(45, 4)]


def test_show_warnings_columns_are_mariadbs(shell):
    with shell.connect(charset="utf8mb3") as conn, conn.cursor() as cur:
        cur.execute("SELECT CAST('x' AS SIGNED)")
        cur.execute("SHOW WARNINGS")
        described = [(f.type_code, f.length, f.flags, f.scale, f.charsetnr) for f in cur._result.fields]
        assert described == [(253, 21, 1, 39, 33), (3, 4, 161, 0, 63), (253, 1536, 1, 39, 33)]
        assert cur.fetchall()[0][:2] == ("Warning", 1292)


@pytest.mark.parametrize(("sql", "table"), [
    ("SHOW SESSION STATUS LIKE 'Ssl_version'", "SESSION_STATUS"), ("SHOW STATUS LIKE 'Uptime'", "SESSION_STATUS"),
    ("SHOW GLOBAL STATUS LIKE 'Uptime'", "GLOBAL_STATUS"), ("SHOW VARIABLES LIKE 'version'", "SESSION_VARIABLES"),
    ("SHOW GLOBAL VARIABLES LIKE 'version'", "GLOBAL_VARIABLES"),
])
def test_show_variables_and_status_columns_are_mariadbs(shell, sql, table):
    # information_schema's VARIABLE_NAME and VARIABLE_VALUE, NOT NULL (Go's ColumnTypes().Nullable())
    with shell.connect(charset="utf8mb4") as conn, conn.cursor() as cur:
        cur.execute(sql)
        described = [(f.name, f.type_code, f.length, f.flags, f.charsetnr, f.db, f.table_name, f.org_name)
                     for f in cur._result.fields]
        assert described == [("Variable_name", 253, 256, 4097, 45, b"information_schema", table, "VARIABLE_NAME"),
                             ("Value", 253, 16384, 4097, 45, b"information_schema", table, "VARIABLE_VALUE")]


def test_a_multi_statements_syntax_error_quotes_the_packet_on(shell):
    flags = pymysql.constants.CLIENT.MULTI_STATEMENTS
    with shell.connect(client_flag=flags) as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.ProgrammingError) as info:
            cur.execute("SELEC 1;SELECT 2")
        assert info.value.args == (ER_PARSE_ERROR.code, _near("SELEC 1;SELECT 2"))
        cur.execute("SELECT 1; SELECT 2 FRO x ; SELECT 3")
        with pytest.raises(pymysql.err.ProgrammingError) as info:
            cur.nextset()
        assert info.value.args == (ER_PARSE_ERROR.code, _near("x ; SELECT 3"))


def _near(text: str) -> str:
    return ("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server "
            f"version for the right syntax to use near '{text}' at line 1")
