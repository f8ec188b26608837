"""server.variables: scopes, checks, SHOW filters, plugin sources, status providers."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

from protocol.errors import SQLError
from server.variables import (
    DEFAULT,
    Scope,
    SystemVariable,
    Variables,
    check_bool,
    check_double,
    check_enum,
    check_int,
    check_str,
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

    def variable_range(self, name):
        return None

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


# MariaDB 10.11's answers to SET of a numeric variable: (bounds, value given, value stored,
# the warnings' codes and quoted values). getopt_ull_limit_value's order: the maximum, the
# block size (rounded down), the minimum; past 64 bits the nearest signed 64-bit integer (1916).
CLAMPING = [
    (check_int(1, 31536000), 0, 1, [(1292, "0")]),
    (check_int(1, 31536000), -1, 1, [(1292, "-1")]),
    (check_int(1, 31536000), 28800, 28800, []),
    (check_int(1, 31536000), 99999999999, 31536000, [(1292, "99999999999")]),
    (check_int(1, 31536000), 2**64 - 1, 31536000, [(1292, "18446744073709551615")]),
    (check_int(1, 31536000), 2**64, 31536000,
     [(1916, "18446744073709551616"), (1292, "9223372036854775807")]),
    (check_int(1, 31536000), -(2**63) - 1, 1,
     [(1916, "-9223372036854775809"), (1292, "-9223372036854775808")]),
    (check_int(0, 2**64 - 1), 10**20, 2**63 - 1, [(1916, "100000000000000000000")]),
    (check_int(1024, 1 << 30, 1024), 1025, 1024, [(1292, "1025")]),
    (check_int(1024, 1 << 30, 1024), 5000, 4096, [(1292, "5000")]),
    (check_int(1024, 1 << 30, 1024), 0, 1024, [(1292, "0")]),
    (check_int(1024, 1 << 30, 1024), (1 << 30) + 1, 1 << 30, [(1292, "1073741825")]),
    (check_int(1024, 1 << 30, 1024), 16384, 16384, []),
    (check_int(4096, 1 << 30, 4096), 4095, 4096, [(1292, "4095")]),
    (check_double(0.0, 31536000.0), -1, 0.0, [(1292, "-1")]),
    (check_double(0.0, 31536000.0), 1.5e30, 31536000.0, [(1292, "1.5e30")]),
    (check_double(0.0, 31536000.0), 10**20, 31536000.0, [(1292, "1e20")]),
    (check_double(0.0, 31536000.0), -1e15, 0.0, [(1292, "-1e15")]),
    (check_double(0.0, 31536000.0), -123456789012345678, 0.0, [(1292, "-1.2345678901234568e17")]),
    (check_double(0.0, 31536000.0), -1.5e-7, 0.0, [(1292, "-0.00000015")]),
    (check_double(0.0, 31536000.0), -1.23456789012345678, 0.0, [(1292, "-1.2345678901234567")]),
    (check_double(0.0, 31536000.0), 31536000.5, 31536000.0, [(1292, "31536000.5")]),
    (check_double(0.0, 31536000.0), Decimal("-0.5"), 0.0, [(1292, "-0.5")]),
    (check_double(0.0, 31536000.0), 0.000001, 0.000001, []),
]


@pytest.mark.parametrize(("bounds", "given", "stored", "warned"), CLAMPING)
def test_numeric_values_clamped_with_mariadbs_warnings(bounds, given, stored, warned):
    warnings = []
    assert bounds.fitted("v", given, warnings, False) == stored
    assert [(code, message.split("'")[1]) for _, code, message in warnings] == warned
    assert all(level == "Warning" for level, _, _ in warnings)
    assert bounds(given) == stored  # (a plain check clamps silently)


def test_clamping_refused_under_strict_all_tables():
    warnings = []
    with pytest.raises(SQLError) as err:
        check_int(1, 100).fitted("wait_timeout", 2**64, warnings, True)
    assert (err.value.code, err.value.message) == (
        1231, "Variable 'wait_timeout' can't be set to the value of '9223372036854775807'")
    assert [code for _, code, _ in warnings] == [1916]
    assert check_int(1, 100).fitted("wait_timeout", 50, [], True) == 50


@pytest.mark.parametrize("given", ["100", 100.0, Decimal("100"), None, True])
def test_integer_variables_take_integers_only(given):
    with pytest.raises(TypeError):
        check_int(1, 1000)(given)


def test_check_set_warns_and_changes_nothing(registry):
    s = session()
    s.sysvars.update(registry.session_defaults())
    warnings = []
    assignment = registry.check_set("wait_timeout", 0, None, s, warnings)
    assert registry.get("wait_timeout", s) == 100  # not yet assigned
    assert warnings == [("Warning", 1292, "Truncated incorrect wait_timeout value: '0'")]
    registry.assign(assignment, s)
    assert registry.get("wait_timeout", s) == 1
    s.sysvars["sql_mode"] = "STRICT_ALL_TABLES"
    assert code(registry.check_set, "wait_timeout", 0, None, s, []) == 1231
    assert registry.check_set("wait_timeout", DEFAULT, Scope.GLOBAL, s, warnings).value == 100


def test_a_session_read_only_value_is_set_globally_only(registry):
    registry.add(SystemVariable("net_buffer_length", 16384, Scope.BOTH, dynamic=True,
                                check=check_int(1024, 1 << 20, 1024), session_read_only=True))
    s = session()
    assert code(registry.set, "net_buffer_length", 2048, None, s) == 1621
    registry.set("net_buffer_length", 2048, Scope.GLOBAL, s)
    assert registry.get("net_buffer_length", None, Scope.GLOBAL) == 2048


def test_session_only_default_and_the_types_mariadb_refuses(registry):
    registry.add(SystemVariable("timestamp", None, Scope.SESSION, dynamic=True,
                                check=check_double(0.0, 2147483647.0)))
    s = session()
    assert registry.check_set("timestamp", DEFAULT, None, s, []).value is None  # the clock again
    warnings = []
    assert registry.check_set("timestamp", -1, None, s, warnings).value == 0.0
    assert [code for _, code, _ in warnings] == [1292]
    assert code(registry.set, "timestamp", None, None, s) == 1232
    assert code(registry.set, "timestamp", "5", None, s) == 1232
    assert code(registry.set, "binlog_format", 1.5, Scope.GLOBAL, s) == 1232
    assert code(registry.set, "binlog_format", Decimal("1.5"), Scope.GLOBAL, s) == 1232
    with pytest.raises(TypeError):
        check_str(1.5)


@pytest.mark.parametrize(("given", "word", "value"),
                         [("1", "on", True), ("0", "OFF", False), ("true", "On", True), ("FALSE", "off", False)])
def test_booleans_take_the_strings_on_and_off_only(given, word, value):
    with pytest.raises(ValueError):
        check_bool(given)  # (the bare words TRUE / FALSE reach it as 1 / 0)
    assert check_bool(word) is value


def test_a_deprecated_variable_warns_before_its_value_is_checked(registry):
    registry.add(SystemVariable("storage_engine", "InnoDB", Scope.BOTH, dynamic=True, check=check_str,
                                deprecated="default_storage_engine"),
                 SystemVariable("big_tables", False, Scope.BOTH, dynamic=True, check=check_bool, deprecated=True))
    s = session()
    warnings = []
    registry.check_set("storage_engine", "InnoDB", None, s, warnings)
    assert warnings == [("Warning", 1287, "'@@storage_engine' is deprecated and will be removed in a future "
                                          "release. Please use '@@default_storage_engine' instead")]
    warnings = []
    assert code(registry.check_set, "big_tables", 0.5, None, s, warnings) == 1232
    assert warnings == [("Warning", 1287, "'@@big_tables' is deprecated and will be removed in a future release")]


def _tuning_registry() -> Variables:
    from server.core_variables import _tuning_variables

    v = Variables()
    v.add(_tuning_variables())
    return v


def test_expire_logs_days_and_seconds_are_one_setting():
    v = _tuning_registry()
    v.set("expire_logs_days", 1.5, Scope.GLOBAL, None)
    assert v.get("binlog_expire_logs_seconds", None, Scope.GLOBAL) == 129600
    v.set("binlog_expire_logs_seconds", 3600, Scope.GLOBAL, None)
    assert v.get("expire_logs_days", None, Scope.GLOBAL) == pytest.approx(3600 / 86400)
    assert v.show_variables(None, Scope.GLOBAL, like_matcher("expire_logs_days")) == [("expire_logs_days", "0.041667")]
    v.set("expire_logs_days", DEFAULT, Scope.GLOBAL, None)
    assert v.get("binlog_expire_logs_seconds", None, Scope.GLOBAL) == 0
    assert code(v.set, "expire_logs_days", 1, None, session()) == 1229


def test_tuning_variables_clamp_and_refuse_as_mariadb():
    v = _tuning_registry()
    s = SimpleNamespace(sysvars=v.session_defaults())
    warnings: list = []
    v.assign(v.check_set("join_buffer_size", 1000, None, s, warnings), s)
    assert v.get("join_buffer_size", s) == 896 and [w[1] for w in warnings] == [1292]
    assert code(v.set, "key_buffer_size", 0, Scope.GLOBAL, s) == 1438
    assert code(v.set, "key_buffer_size", 100, Scope.GLOBAL, s) == 1438  # (rounded down to 0)
    assert code(v.set, "div_precision_increment", 8, None, s) == 1235
    v.set("div_precision_increment", 4, None, s)
    assert code(v.set, "thread_stack", 1, Scope.GLOBAL, s) == 1238
    assert code(v.set, "thread_cache_size", 1, None, s) == 1229
    v.set("thread_cache_size", DEFAULT, Scope.GLOBAL, s)
    assert v.get("thread_cache_size", s, Scope.GLOBAL) == 256
