"""System variables of the master plugin: defaults, MySQL's value syntax, aliases, errors."""

from __future__ import annotations

import pytest

from protocol.errors import SQLError
from semisync.interface import ReplicationInterface
from semisync.master_plugin import SemiSyncMasterPlugin


@pytest.fixture
def plugin():
    p = SemiSyncMasterPlugin(ReplicationInterface())
    p.install()
    return p


def error_code(call) -> int:
    with pytest.raises(SQLError) as e:
        call()
    return e.value.code


def test_defaults_as_show_variables_prints_them(plugin):
    assert plugin.system_variables() == {
        "rpl_semi_sync_master_enabled": "OFF",
        "rpl_semi_sync_master_timeout": "10000",
        "rpl_semi_sync_master_trace_level": "32",
        "rpl_semi_sync_master_wait_for_slave_count": "1",
        "rpl_semi_sync_master_wait_no_slave": "ON",
        "rpl_semi_sync_master_wait_point": "AFTER_SYNC",
    }


@pytest.mark.parametrize(
    "value, shown",
    [("ON", "ON"), ("on", "ON"), ("True", "ON"), (1, "ON"), ("1", "ON"), (True, "ON"),
     ("OFF", "OFF"), ("false", "OFF"), (0, "OFF"), ("0", "OFF"), (None, "OFF")],
)
def test_booleans_take_mysql_words_in_any_case(plugin, value, shown):
    plugin.set_variable("rpl_semi_sync_master_enabled", "ON" if shown == "OFF" else "OFF")
    plugin.set_variable("rpl_semi_sync_master_enabled", value)
    assert plugin.system_variables()["rpl_semi_sync_master_enabled"] == shown
    assert plugin.get_variable("rpl_semi_sync_master_enabled") == (1 if shown == "ON" else 0)


@pytest.mark.parametrize("value", ["yes", 2, -1, "", "ONN"])
def test_bad_boolean_is_1231(plugin, value):
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_wait_no_slave", value)) == 1231
    assert plugin.get_variable("rpl_semi_sync_master_wait_no_slave") == 1  # unchanged


def test_wrong_types_are_1232(plugin):
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_timeout", "abc")) == 1232
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_timeout", 1.5)) == 1232
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_enabled", 1.0)) == 1232
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_wait_point", 1.0)) == 1232


def test_integer_ranges(plugin):
    plugin.set_variable("rpl_semi_sync_master_wait_for_slave_count", 65535)
    plugin.set_variable("rpl_semi_sync_master_timeout", "0")
    assert plugin.get_variable("rpl_semi_sync_master_timeout") == 0
    for bad in (0, 65536, -3):
        assert error_code(lambda v=bad: plugin.set_variable("rpl_semi_sync_master_wait_for_slave_count", v)) == 1231
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_timeout", -1)) == 1231
    assert plugin.get_variable("rpl_semi_sync_master_wait_for_slave_count") == 65535


def test_wait_point_by_name_or_index(plugin):
    plugin.set_variable("rpl_semi_sync_master_wait_point", "after_commit")
    assert plugin.get_variable("rpl_semi_sync_master_wait_point") == "AFTER_COMMIT"
    plugin.set_variable("rpl_semi_sync_master_wait_point", 0)
    assert plugin.system_variables()["rpl_semi_sync_master_wait_point"] == "AFTER_SYNC"
    plugin.set_variable("rpl_semi_sync_master_wait_point", "1")
    assert plugin.get_variable("rpl_semi_sync_master_wait_point") == "AFTER_COMMIT"
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_wait_point", "AFTER_FLUSH")) == 1231
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_wait_point", 2)) == 1231


def test_mysql8_aliases_read_and_write_the_same_variables(plugin):
    plugin.set_variable("rpl_semi_sync_source_enabled", "ON")
    plugin.set_variable("RPL_SEMI_SYNC_SOURCE_TIMEOUT", 500)
    plugin.set_variable("rpl_semi_sync_source_wait_for_replica_count", 3)
    plugin.set_variable("rpl_semi_sync_source_wait_no_replica", "OFF")
    shown = plugin.system_variables()
    assert shown["rpl_semi_sync_master_enabled"] == "ON" and shown["rpl_semi_sync_master_timeout"] == "500"
    assert shown["rpl_semi_sync_master_wait_for_slave_count"] == "3"
    assert plugin.get_variable("rpl_semi_sync_source_wait_no_replica") == 0
    assert plugin.get_variable("rpl_semi_sync_source_trace_level") == 32


def test_unknown_variable_is_1193(plugin):
    assert error_code(lambda: plugin.get_variable("rpl_semi_sync_master_nope")) == 1193
    assert error_code(lambda: plugin.set_variable("rpl_semi_sync_master_nope", 1)) == 1193
    assert not plugin.knows_variable("rpl_semi_sync_slave_enabled")
    assert plugin.knows_variable("rpl_semi_sync_source_timeout")


def test_settings_at_start_are_validated_and_unrelated_ones_ignored():
    p = SemiSyncMasterPlugin(
        ReplicationInterface(),
        settings={"rpl_semi_sync_master_timeout": "500", "rpl_semi_sync_slave_enabled": "ON", "port": 3306},
    )
    p.install()
    assert p.get_variable("rpl_semi_sync_master_timeout") == 500
    with pytest.raises(SQLError) as e:
        SemiSyncMasterPlugin(ReplicationInterface(), settings={"rpl_semi_sync_master_wait_for_slave_count": 0})
    assert e.value.code == 1231
    assert "rpl_semi_sync_master_wait_for_slave_count" in e.value.message


def test_error_messages_name_the_variable_and_value(plugin):
    with pytest.raises(SQLError) as e:
        plugin.set_variable("rpl_semi_sync_master_enabled", "maybe")
    assert e.value.message == "Variable 'rpl_semi_sync_master_enabled' can't be set to the value of 'maybe'"
    assert e.value.sqlstate == "42000"
