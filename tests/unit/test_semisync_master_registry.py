"""Plugin registry: built-in specs, entry-point discovery, INSTALL/UNINSTALL PLUGIN errors."""

from __future__ import annotations

import pytest

from protocol.errors import SQLError
from semisync import plugin_registry
from semisync.interface import BinlogStorageObserver, ReplicationInterface, StorageParam
from semisync.master_plugin import SemiSyncMasterPlugin
from semisync.plugin_registry import PluginRegistry, PluginSpec, available_plugins, find_plugin
from semisync.slave_plugin import SemiSyncSlavePlugin
from tests.support.semisync_harness import FakeClockLoop, pos


class AuditPlugin(BinlogStorageObserver):
    """A third party's plugin: counts flushed groups, one variable."""

    def __init__(self, interface, **options):
        self.interface = interface
        self.flushes = 0
        self.installed = False

    def install(self):
        self.installed = True
        self.interface.storage.add_observer(self)

    def uninstall(self):
        self.installed = False
        self.interface.storage.remove_observer(self)

    def after_flush(self, param):
        self.flushes += 1

    def knows_variable(self, name):
        return self.installed and name == "audit_enabled"

    def system_variables(self):
        return {"audit_enabled": "ON"} if self.installed else {}

    def get_variable(self, name):
        return 1

    def set_variable(self, name, value):
        pass

    def variable_range(self, name):
        return None

    def status_variables(self):
        return {"Audit_flushes": self.flushes} if self.installed else {}

    def flush_status(self):
        self.flushes = 0


AUDIT = PluginSpec("audit", "audit.so", AuditPlugin, "counts binlog groups", "someone")


class FakeEntryPoint:
    def __init__(self, name, target):
        self.name, self.value, self._target = name, f"thirdparty:{name}", target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


@pytest.fixture
def third_party(monkeypatch):
    points = [
        FakeEntryPoint("audit", AUDIT),
        FakeEntryPoint("broken", ImportError("no module named thirdparty")),
        FakeEntryPoint("not_a_spec", lambda: "nonsense"),
    ]
    monkeypatch.setattr(plugin_registry, "entry_points", lambda group: points if group == "semisync.plugins" else [])


def code(call) -> int:
    with pytest.raises(SQLError) as e:
        call()
    return e.value.code


def test_builtin_specs():
    specs = available_plugins()
    assert specs["rpl_semi_sync_master"].soname == "semisync_master.so"
    assert specs["rpl_semi_sync_master"].factory is SemiSyncMasterPlugin
    assert specs["rpl_semi_sync_slave"].soname == "semisync_slave.so"
    assert specs["rpl_semi_sync_slave"].factory is SemiSyncSlavePlugin


def test_find_plugin_errors_are_mysqls():
    assert find_plugin("RPL_SEMI_SYNC_MASTER", "semisync_master.so").name == "rpl_semi_sync_master"
    assert code(lambda: find_plugin("rpl_semi_sync_master", "nope.so")) == 1126
    assert code(lambda: find_plugin("rpl_semi_sync_slave", "semisync_master.so")) == 1127


def test_entry_points_add_third_party_plugins_and_broken_ones_are_skipped(third_party, caplog):
    specs = available_plugins()
    assert specs["audit"] is AUDIT and "broken" not in specs and "not_a_spec" not in specs
    assert "rpl_semi_sync_master" in specs
    assert any("broken" in r.getMessage() for r in caplog.records)


def test_install_a_third_party_plugin_by_its_soname(third_party):
    interface = ReplicationInterface()
    registry = PluginRegistry(interface)
    plugin = registry.install("audit", "audit.so")
    interface.storage.after_flush(StorageParam(1, pos(100)))
    assert plugin.flushes == 1 and registry.status_variables() == {"Audit_flushes": 1}
    assert registry.show_plugins() == [("audit", "ACTIVE", "REPLICATION", "audit.so", "GPL")]
    registry.uninstall("audit")
    assert not interface.storage


def test_install_uninstall_cycle_with_mysqls_errors():
    interface = ReplicationInterface()
    registry = PluginRegistry(interface, settings={"rpl_semi_sync_master_enabled": "ON"})
    master = registry.load("rpl_semi_sync_master")
    assert registry.is_installed("rpl_semi_sync_master") and registry.get("rpl_semi_sync_master") is master
    assert code(lambda: registry.install("rpl_semi_sync_master", "semisync_master.so")) == 1125
    registry.uninstall("rpl_semi_sync_master")
    assert not master.installed and not interface.transaction and registry.get("rpl_semi_sync_master") is None
    assert code(lambda: registry.uninstall("rpl_semi_sync_master")) == 1305
    with pytest.raises(SQLError) as e:
        registry.uninstall("rpl_semi_sync_master")
    assert e.value.message == "PLUGIN rpl_semi_sync_master does not exist"
    assert code(lambda: registry.get_variable("rpl_semi_sync_master_enabled")) == 1193
    again = registry.install("rpl_semi_sync_master", "semisync_master.so")
    assert again is not master and again.get_variable("rpl_semi_sync_master_enabled") == 1  # the options again


def test_registry_routes_variables_and_status_of_all_installed_plugins():
    registry = PluginRegistry(ReplicationInterface())
    registry.load("rpl_semi_sync_master")
    registry.install("rpl_semi_sync_slave", "semisync_slave.so")
    assert [row[0] for row in registry.show_plugins()] == ["rpl_semi_sync_master", "rpl_semi_sync_slave"]
    registry.set_variable("rpl_semi_sync_slave_enabled", "ON")
    registry.set_variable("rpl_semi_sync_source_timeout", 700)
    variables = registry.system_variables()
    assert variables["rpl_semi_sync_slave_enabled"] == "ON" and variables["rpl_semi_sync_master_timeout"] == "700"
    assert list(variables) == sorted(variables) and len(variables) == 8
    status = registry.status_variables()
    assert status["Rpl_semi_sync_slave_status"] == "OFF" and status["Rpl_semi_sync_master_status"] == "OFF"
    assert registry.knows_variable("rpl_semi_sync_master_wait_point") and not registry.knows_variable("port")
    assert code(lambda: registry.set_variable("rpl_semi_sync_nope", 1)) == 1193
    registry.shutdown()
    assert registry.show_plugins() == []


def test_uninstall_through_the_registry_releases_waiting_commits():
    fl = FakeClockLoop()
    try:
        interface = ReplicationInterface()
        registry = PluginRegistry(interface, clock=fl.clock, settings={"rpl_semi_sync_master_enabled": 1})
        registry.load("rpl_semi_sync_master")
        param = StorageParam(1, pos(100))
        interface.storage.after_flush(param)
        task = fl.spawn(interface.storage.after_sync(param))
        assert not task.done()
        registry.uninstall("rpl_semi_sync_master")
        fl.settle()
        assert task.done()
    finally:
        fl.close()
