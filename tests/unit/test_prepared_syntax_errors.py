"""A prepare's 1064 (server/prepared.py `PreparedStatement.as_written`): the statement is described
by running or planning it with NULLs or zeros for its placeholders, but a syntax error quotes the
text as the client wrote it, `?` and all, as mysqld's prepare does (MariaDB: 'SELEC ?' is near
'SELEC ?'). tests/integration/test_go_sql_driver_mariadb.py compares it with MariaDB."""

from __future__ import annotations

import pytest

from protocol.errors import ER_NO_SUCH_TABLE, SQLError
from server.prepared import PreparedStatement, split_placeholders
from server.sql import parse_error


@pytest.mark.parametrize(("sql", "bound", "near"), [
    ("SELEC ?", "SELEC 0", "SELEC ?"),
    ("SELECT ?, ? FRO t WHERE a = ?", "SELECT NULL, NULL FRO t WHERE a = NULL", "t WHERE a = ?"),
    ("SELECT ? + ? ?", "SELECT 0 + 0 0", "?"),  # the error at a literal: at its placeholder
    ("SELECT ? FROM", "SELECT NULL FROM", ""),
])
def test_a_prepare_syntax_error_quotes_the_statement_as_written(sql, bound, near):
    stmt = PreparedStatement(1, split_placeholders(sql))
    at = {"SELEC 0": 0, "SELECT 0 + 0 0": 13}.get(bound, bound.find(near.rstrip("?")) if near else len(bound))
    assert stmt.as_written(parse_error(bound, at)).message.endswith(f"near '{near}' at line 1")


def test_a_prepare_error_that_is_no_syntax_error_is_kept():
    stmt = PreparedStatement(1, split_placeholders("SELECT ? FROM nope"))
    error = SQLError(ER_NO_SUCH_TABLE, "d", "nope")
    assert stmt.as_written(error) is error
    assert PreparedStatement(1, ["SELEC 1"]).as_written(parse_error("SELEC 1", 0)).message.endswith("near 'SELEC 1' at line 1")
