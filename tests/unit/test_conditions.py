"""server/conditions.py: SIGNAL / RESIGNAL outside a stored program, what MariaDB decides while
parsing and the condition raised from the evaluated values
(tests/integration/test_dba_forms_mariadb.py compares every form with MariaDB live)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from protocol.errors import SQLError
from protocol.messages import OK
from server.conditions import signal


class FakeSession:
    """The session's part SIGNAL uses: the engine's SELECT of the values, the diagnostics area."""

    def __init__(self, row: tuple = (), sql_mode: str = "STRICT_TRANS_TABLES"):
        self.row = row
        self.selected: list[str] = []
        self.diagnostics: list = []
        self.sysvars = {"sql_mode": sql_mode}

    async def evaluate_select(self, sql: str):
        self.selected.append(sql)
        return SimpleNamespace(rows=[self.row])


async def raised(sql: str, session: FakeSession | None = None) -> SQLError:
    with pytest.raises(SQLError) as e:
        await signal(session or FakeSession(), sql, sql.split()[0].upper())
    return e.value


@pytest.mark.parametrize(("sql", "code", "message"), [
    ("SIGNAL SQLSTATE '00000'", 1407, "Bad SQLSTATE: '00000'"),
    ("SIGNAL SQLSTATE '4500a'", 1407, "Bad SQLSTATE: '4500a'"),
    ("SIGNAL foo", 1319, "Undefined CONDITION: foo"),
    ("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a', MESSAGE_TEXT = 'b'", 1641,
     "Duplicate condition information item 'MESSAGE_TEXT'"),
    ("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = CONCAT('a')", 1054, "Unknown column 'CONCAT' in 'SELECT'"),
    ("RESIGNAL SET MESSAGE_TEXT = 'x'", 1645, "RESIGNAL when handler not active"),
    ("RESIGNAL SQLSTATE '00000'", 1407, "Bad SQLSTATE: '00000'"),
])
async def test_what_mariadb_decides_while_parsing(sql, code, message):
    error = await raised(sql)
    assert (error.code, error.message) == (code, message)


@pytest.mark.parametrize("sql", ["SIGNAL", "SIGNAL SQLSTATE 45000", "SIGNAL SQLSTATE '45000' SET NOSUCH = 1",
                                 "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = -1"])
async def test_what_the_grammar_refuses_is_1064(sql):
    assert (await raised(sql)).code == 1064


async def test_an_exception_carries_its_errno_sqlstate_and_text():
    session = FakeSession(("x", "1234", 1234))
    error = await raised("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = '1234', MESSAGE_TEXT = 'x'", session)
    assert (error.code, error.sqlstate, error.message) == (1234, "45000", "x")
    assert session.selected == ["SELECT CAST('x' AS CHAR), CAST('1234' AS CHAR), CAST('1234' AS SIGNED)"]
    error = await raised("SIGNAL SQLSTATE '02123'")
    assert (error.code, error.sqlstate, error.message) == (1643, "02123", "Unhandled user-defined not found condition")


async def test_a_warning_is_an_ok_with_its_warning():
    session = FakeSession(("careful 😀",))
    answer = await signal(session, "SIGNAL SQLSTATE '01234' SET MESSAGE_TEXT = 'careful 😀'", "SIGNAL")
    assert isinstance(answer, OK) and answer.warnings == 1
    assert session.diagnostics == [("Warning", 1642, "careful ?")]


async def test_values_mariadb_refuses():
    error = await raised("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65534.5", FakeSession(("65534.5", 65535)))
    assert (error.code, error.message) == (1231, "Variable 'MYSQL_ERRNO' can't be set to the value of '65534.5'")
    error = await raised("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @nothing", FakeSession((None,)))
    assert (error.code, error.message) == (1231, "Variable 'MESSAGE_TEXT' can't be set to the value of 'NULL'")
    error = await raised("SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = 'long'", FakeSession(("c" * 65,)))
    assert (error.code, error.message) == (1648, "Data too long for condition item 'CLASS_ORIGIN'")
    error = await raised("SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = 'long'", FakeSession(("c" * 65,), sql_mode=""))
    assert error.code == 1644 and error.warnings == (("Warning", 1647, "Data truncated for condition item 'CLASS_ORIGIN'"),)
