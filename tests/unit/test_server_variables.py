"""server.variables: scopes, checks, SHOW filters, plugin sources, status providers."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from protocol.errors import SQLError
from server.variables import (
    DEFAULT,
    Scope,
    SystemVariable,
    Variables,
    check_bool,
    check_enum,
    check_int,
    like_matcher,
)


def session():
    return SimpleNamespace(sysvars={})


@pytest.fixture
def registry():
    v = Variables()
    v.add(
        SystemVariable("server_id", 7),
        SystemVariable("Autocommit_Like", True, Scope.BOTH, dynamic=True, check=check_bool),
        SystemVariable("wait_timeout", 100, Scope.BOTH, dynamic=True, check=check_int(1, 1000)),
        SystemVariable("binlog_format", "STATEMENT", Scope.BOTH, dynamic=True,
                       check=check_enum("MIXED", "STATEMENT", "ROW")),
        SystemVariable("read_only", False),
        SystemVariable("timestamp", None, Scope.SESSION, dynamic=True),
        SystemVariable("max_connections", 151, Scope.GLOBAL, dynamic=True, check=check_int(1, 10)),
    )
    return v


def code(fn, *args):
    with pytest.raises(SQLError) as err:
        fn(*args)
    return err.value.code


def test_names_are_case_insensitive_and_shown_lower_case(registry):
    assert registry.get("SERVER_ID", None) == 7
    rows = registry.show_variables(None, None, like_matcher("SERVER_ID"))
    assert rows == [("server_id", "7")]
    assert registry.get("autocommit_like", None) is True


def test_set_errors(registry):
    s = session()
    assert code(registry.set, "nope", 1, Scope.GLOBAL, s) == 1193
    assert code(registry.set, "read_only", 1, Scope.GLOBAL, s) == 1238
    assert code(registry.set, "autocommit_like", 5, Scope.SESSION, s) == 1231
    assert code(registry.set, "wait_timeout", "abc", Scope.SESSION, s) == 1232
    assert code(registry.set, "max_connections", 3, None, s) == 1229
    assert code(registry.set, "timestamp", 3, Scope.GLOBAL, s) == 1228
    assert code(registry.set, "binlog_format", "NOPE", Scope.GLOBAL, s) == 1231


def test_session_and_global_values(registry):
    s = session()
    s.sysvars.update(registry.session_defaults())
    registry.set("wait_timeout", 5, None, s)
    assert registry.get("wait_timeout", s) == 5
    assert registry.get("wait_timeout", s, Scope.GLOBAL) == 100
    registry.set("binlog_format", "row", Scope.GLOBAL, s)
    assert registry.get("binlog_format", None) == "ROW"
    assert registry.get("binlog_format", s) == "STATEMENT"  # the session copy of the old global
    registry.set("wait_timeout", DEFAULT, None, s)
    assert registry.get("wait_timeout", s) == 100
    assert dict(registry.show_variables(s, Scope.GLOBAL, None))["autocommit_like"] == "ON"
    assert "timestamp" not in dict(registry.show_variables(s, Scope.GLOBAL, None))


class FakePlugin:
    def __init__(self):
        self.installed = True
        self.value = False

    def knows_variable(self, name):
        return self.installed and name == "rpl_x_enabled"

    def system_variables(self):
        return {"rpl_x_enabled": "ON" if self.value else "OFF"} if self.installed else {}

    def get_variable(self, name):
        return int(self.value)

    def set_variable(self, name, value):
        if value is None:
            self.value = False
        elif value in ("ON", 1):
            self.value = True
        else:
            from protocol.errors import ER_WRONG_VALUE_FOR_VAR

            raise SQLError(ER_WRONG_VALUE_FOR_VAR, name, value)


def test_plugin_source_variables_exist_only_while_installed(registry):
    plugin = FakePlugin()
    registry.add_source(plugin)
    registry.set("RPL_X_ENABLED", "ON", Scope.GLOBAL, None)
    assert registry.get("rpl_x_enabled", None) == 1
    assert ("rpl_x_enabled", "ON") in registry.show_variables(None, None, like_matcher("rpl%"))
    assert code(registry.set, "rpl_x_enabled", "bad", Scope.GLOBAL, None) == 1231
    registry.set("rpl_x_enabled", DEFAULT, Scope.GLOBAL, None)
    assert plugin.value is False
    plugin.installed = False
    assert code(registry.get, "rpl_x_enabled", None) == 1193
    assert registry.show_variables(None, None, like_matcher("rpl%")) == []


def test_status_providers_and_like():
    v = Variables()
    v.add_status(lambda: {"Uptime": 3, "Threads_connected": 2})
    extra = lambda: {"Rpl_semi_sync_master_status": "ON"}  # noqa: E731
    v.add_status(extra)
    assert v.show_status(like_matcher("threads%")) == [("Threads_connected", "2")]
    assert v.show_status(like_matcher("rpl_semi_sync_master_statu_")) == [("Rpl_semi_sync_master_status", "ON")]
    v.remove_status(extra)
    assert v.show_status(like_matcher("rpl%")) == []


def test_like_escapes():
    assert like_matcher("a\\_b")("a_b")
    assert not like_matcher("a\\_b")("axb")
    assert like_matcher("%semi%")("RPL_SEMI_SYNC")
