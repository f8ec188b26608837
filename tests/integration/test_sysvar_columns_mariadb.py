"""The result columns of `SELECT @@variable` as MariaDB 10.11 describes them, compared with a
stock MariaDB: over the text protocol each column's name, type code, length, flags, decimals and
character set (PyMySQL), over the binary protocol each column's type code and flags
(mysql-connector-python's prepared cursor, at execute).

Covered: a boolean variable a BIGINT of length 1 (it was 21, with the NUM flag), an integer one a
BIGINT(21) UNSIGNED, a DOUBLE one (max_statement_time) 21 long with 6 decimals, a string one
(NULL or empty too) a VARCHAR as long as its value's characters x 4 with 39 decimals in
utf8mb4_general_ci (it was 1024 long, 0 decimals, utf8_general_ci); @@session., @@global.,
@@local. and an alias alike; beside a number and a string literal (1 was a BIGINT(21), 'x' was
named "'x'" and 1024 long) and beside a table's column (the variable was typed from its value's
kind: a BIGINT(21)).

Left out: the values themselves (the two servers' ports, versions and packet sizes differ) and
variables these servers set otherwise (@@version, ssl_*)."""

from __future__ import annotations

import pymysql
import pytest

from protocol.messages import ColumnFlag
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    connector_connection,
    each_askers_answers,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 'a')",
]

QUERIES = [
    "SELECT @@autocommit, @@sql_mode, @@max_allowed_packet, @@sql_log_bin",
    "SELECT @@session.autocommit, @@global.max_connections, @@local.wait_timeout, @@character_set_client,"
    " @@time_zone",
    "SELECT @@server_id, @@read_only, @@init_connect, @@gtid_slave_pos, @@hostname, @@port",
    "SELECT @@net_write_timeout, @@max_statement_time, @@auto_increment_increment, @@lock_wait_timeout",
    "SELECT @@global.sql_mode, @@session.sql_mode, @@autocommit AS ac, @@sql_mode sm",
    "SELECT @@autocommit, 1, 'x', @@character_set_results",
    "SELECT @@autocommit, id, @@sql_mode FROM t WHERE id = 1",
    "SELECT @@max_statement_time, v FROM t",
    "SELECT @@tx_isolation, @@session.tx_isolation, @@global.tx_isolation",
]

_FLAGS = ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.BINARY | ColumnFlag.NUM


def _text_columns(port: int) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d", autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for sql in QUERIES:
                cur.execute(sql)
                cur.fetchall()
                out.append((sql, [(f.name, f.type_code, f.length, f.flags & _FLAGS, f.scale, f.charsetnr)
                                  for f in cur._result.fields]))
    finally:
        conn.close()
    return out


def _binary_columns(port: int) -> list[tuple]:
    conn = connector_connection(port, "d")
    out: list[tuple] = []
    try:
        for sql in QUERIES:
            cur = conn.cursor(prepared=True)
            cur.execute(sql)
            cur.fetchall()
            out.append((sql, [(d[0], d[1], d[7] & _FLAGS) for d in cur.description]))
            cur.close()
    finally:
        conn.close()
    return out


def test_system_variable_columns_as_mariadb(tmp_path):
    (theirs_text, ours_text), (theirs_binary, ours_binary) = each_askers_answers(
        tmp_path, SETUP, _text_columns, _binary_columns)
    # what the comparison stands on: MariaDB's own description of two of them
    assert theirs_text[0][1][0] == ("@@autocommit", 8, 1, ColumnFlag.BINARY, 0, 63)
    assert theirs_text[0][1][2] == ("@@max_allowed_packet", 8, 21, ColumnFlag.BINARY | ColumnFlag.UNSIGNED, 0, 63)
    assert answer_differences(theirs_text, ours_text) == ""
    assert answer_differences(theirs_binary, ours_binary) == ""
