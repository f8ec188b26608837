"""server/sql_prepared.py's parsing of PREPARE / EXECUTE / DEALLOCATE and its USING literals."""

from __future__ import annotations

import pytest

from protocol.errors import SQLError
from protocol.messages import FieldType
from server.sql_prepared import (
    Execution,
    Source,
    parse_deallocate,
    parse_execute,
    parse_prepare,
    using_literal,
)


def test_prepare_sources():
    assert parse_prepare("PREPARE s FROM 'SELECT ?'") == ("s", Source(text="SELECT ?"))
    assert parse_prepare("prepare `My s` from @q;") == ("My s", Source(variable="q"))
    assert parse_prepare("PREPARE s FROM CONCAT('SELECT ', 1)") == ("s", Source(expression="CONCAT('SELECT ', 1)"))
    assert parse_prepare("PREPARE s FROM NULL") == ("s", Source(expression="NULL"))


@pytest.mark.parametrize("sql", ["PREPARE s 'SELECT 1'", "PREPARE s FROM", "PREPARE 'x' FROM 'SELECT 1'",
                                 "PREPARE FROM 'SELECT 1'"])
def test_prepare_syntax_errors(sql):
    with pytest.raises(SQLError) as err:
        parse_prepare(sql)
    assert err.value.error.code == 1064


def test_execute_forms():
    assert parse_execute("EXECUTE s") == Execution("s", None, ())
    assert parse_execute("EXECUTE s USING @a, 1+1, 'x, y', CONCAT('a', (1)), DEFAULT") == Execution(
        "s", None, ("@a", "1+1", "'x, y'", "CONCAT('a', (1))", "DEFAULT"))
    assert parse_execute("EXECUTE IMMEDIATE 'SELECT ?' USING 1") == Execution(None, Source(text="SELECT ?"), ("1",))
    assert parse_execute("execute immediate concat('SELECT ', 2) using 2;") == Execution(
        None, Source(expression="concat('SELECT ', 2)"), ("2",))
    assert parse_execute("EXECUTE IMMEDIATE") == Execution("IMMEDIATE", None, ())  # a statement so named


@pytest.mark.parametrize("sql", ["EXECUTE", "EXECUTE s USING", "EXECUTE s USING 1,", "EXECUTE s USING ,1",
                                 "EXECUTE s 1", "EXECUTE IMMEDIATE 'SELECT ?' USING 'a' USING 2",
                                 "EXECUTE IMMEDIATE USING 1"])
def test_execute_syntax_errors(sql):
    with pytest.raises(SQLError) as err:
        parse_execute(sql)
    assert err.value.error.code == 1064


def test_deallocate():
    assert parse_deallocate("DEALLOCATE PREPARE S") == "S"
    assert parse_deallocate("drop prepare `a b`;") == "a b"
    for sql in ("DEALLOCATE s", "DEALLOCATE PREPARE", "DROP PREPARE s t"):
        with pytest.raises(SQLError):
            parse_deallocate(sql)


def test_using_literals_as_mariadb_binlogs_them():
    assert using_literal(None, FieldType.NULL) == "NULL"
    assert using_literal(7, FieldType.LONGLONG) == "7"
    assert using_literal(1e2, FieldType.DOUBLE) == "100.0e0"
    assert using_literal("2.50", FieldType.NEWDECIMAL) == "2.50"
    assert using_literal("x'y\\", FieldType.VAR_STRING) == "'x\\'y\\\\'"
    assert using_literal("A\xff", FieldType.VAR_STRING, 63) == "'A\xff'"  # (valid UTF-8: quoted)
    assert using_literal(b"\x00\xff", FieldType.BLOB, 63) == "X'00ff'"
    assert using_literal("2020-01-01", FieldType.DATE) == "DATE'2020-01-01'"
    assert using_literal("2020-01-01 10:00:00.5", FieldType.DATETIME) == "TIMESTAMP'2020-01-01 10:00:00.5'"
    assert using_literal("10:00:00", FieldType.TIME) == "TIME'10:00:00'"
