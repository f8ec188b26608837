"""Replication plugins: the built-in semi-sync pair and third-party ones, INSTALL/UNINSTALL PLUGIN.

Contract
- A plugin is described by a `PluginSpec` (name, soname, factory). The factory is called as
  `factory(interface, **options)` and returns an object with `install()`, `uninstall()`,
  `knows_variable(name)`, `system_variables()`, `get_variable(name)`, `set_variable(name, value)`,
  `status_variables()` and `flush_status()` (the `Plugin` protocol below); it builds only on
  `semisync.interface` (WL#4398), so a third party can ship one.
- Third-party plugins are found through the Python entry point group `semisync.plugins`: each
  entry point loads to a `PluginSpec` (or a callable returning one). A broken entry point is
  logged and skipped, never fatal.
- `PluginRegistry` is one server's set of installed plugins. The shells implement SHOW PLUGINS,
  INSTALL PLUGIN and UNINSTALL PLUGIN on it, and route `SET GLOBAL` / `SELECT @@` / `SHOW
  VARIABLES` / `SHOW STATUS` for plugin variables through it. Errors are mysqld's:
  ER_CANT_OPEN_LIBRARY (1126) for an unknown soname, ER_CANT_FIND_DL_ENTRY (1127) for a name
  that soname does not hold,
  ER_UDF_EXISTS (1125) to install an installed plugin, ER_SP_DOES_NOT_EXIST (1305, `PLUGIN x
  does not exist`) to uninstall an absent one, ER_UNKNOWN_SYSTEM_VARIABLE (1193) for a variable
  no installed plugin has.
- A plugin installed again is a new instance: its variables start from the server's options
  again (the `options` given to the registry), as a reinstalled mysqld plugin starts from its
  defaults and my.cnf.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol

from protocol.errors import (
    ER_CANT_FIND_DL_ENTRY,
    ER_CANT_OPEN_LIBRARY,
    ER_SP_DOES_NOT_EXIST,
    ER_UDF_EXISTS,
    ER_UNKNOWN_SYSTEM_VARIABLE,
    SQLError,
)
from semisync.interface import ReplicationInterface
from semisync.master_plugin import SemiSyncMasterPlugin
from semisync.slave_plugin import SemiSyncSlavePlugin

log = logging.getLogger("semisync.plugins")

ENTRY_POINT_GROUP = "semisync.plugins"
PLUGIN_TYPE = "REPLICATION"


class Plugin(Protocol):
    def install(self) -> None: ...
    def uninstall(self) -> None: ...
    def knows_variable(self, name: str) -> bool: ...
    def system_variables(self) -> dict[str, str]: ...
    def get_variable(self, name: str) -> int | str: ...
    def set_variable(self, name: str, value: object) -> None: ...
    def variable_range(self, name: str) -> tuple[int, int] | None: ...
    def status_variables(self) -> dict[str, int | str]: ...
    def flush_status(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PluginSpec:
    name: str
    soname: str
    factory: Callable[..., Plugin]  # factory(interface, **options)
    description: str = ""
    author: str = ""
    version: str = "1.0"
    license: str = "GPL"


BUILTIN_PLUGINS = (
    PluginSpec(
        "rpl_semi_sync_master", "semisync_master.so", SemiSyncMasterPlugin,
        "Semi-synchronous replication master", "semisync",
    ),
    PluginSpec(
        "rpl_semi_sync_slave", "semisync_slave.so", SemiSyncSlavePlugin,
        "Semi-synchronous replication slave", "semisync",
    ),
)


def available_plugins() -> dict[str, PluginSpec]:
    """Built-in specs, then those of the `semisync.plugins` entry points (by lower-case name)."""
    specs = {spec.name: spec for spec in BUILTIN_PLUGINS}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
            spec = loaded if isinstance(loaded, PluginSpec) else loaded()
            if not isinstance(spec, PluginSpec):
                raise TypeError(f"{ep.value} gives {type(spec).__name__}, not a PluginSpec")
        except Exception:  # a third party's bug must not stop the server
            log.exception("skipping replication plugin entry point %r", ep.name)
            continue
        specs.setdefault(spec.name.lower(), spec)
    return specs


def find_plugin(name: str, soname: str, specs: dict[str, PluginSpec] | None = None) -> PluginSpec:
    """The spec of plugin `name` in library `soname`, or mysqld's error."""
    specs = available_plugins() if specs is None else specs
    in_library = [s for s in specs.values() if s.soname == soname]
    if not in_library:
        raise SQLError(ER_CANT_OPEN_LIBRARY, soname, 2, "cannot open shared object file: No such file or directory")
    for spec in in_library:
        if spec.name == name.lower():
            return spec
    raise SQLError(ER_CANT_FIND_DL_ENTRY, name)


class PluginRegistry:
    """The replication plugins installed in one server."""

    def __init__(
        self,
        interface: ReplicationInterface,
        *,
        specs: Iterable[PluginSpec] | None = None,
        **options: Any,
    ):
        self._interface = interface
        self._specs = {s.name: s for s in specs} if specs is not None else available_plugins()
        self._options = options
        self._installed: dict[str, tuple[PluginSpec, Plugin]] = {}

    def load(self, name: str) -> Plugin:
        """Start-up: install a known plugin by name (a built-in needs no INSTALL PLUGIN)."""
        spec = self._specs.get(name.lower())
        if spec is None:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "PLUGIN", name)
        return self._install(spec)

    def install(self, name: str, soname: str) -> Plugin:
        """INSTALL PLUGIN name SONAME 'soname'."""
        spec = find_plugin(name, soname, self._specs)
        if spec.name in self._installed:
            raise SQLError(ER_UDF_EXISTS, name)
        return self._install(spec)

    def uninstall(self, name: str) -> None:
        """UNINSTALL PLUGIN name: its observers go away and its waiting commits are released."""
        entry = self._installed.pop(name.lower(), None)
        if entry is None:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "PLUGIN", name)
        entry[1].uninstall()
        log.info("plugin %s uninstalled", entry[0].name)

    def shutdown(self) -> None:
        """Uninstall everything (server shutdown), last installed first."""
        for name in reversed(list(self._installed)):
            self.uninstall(name)

    def get(self, name: str) -> Plugin | None:
        entry = self._installed.get(name.lower())
        return entry[1] if entry else None

    def is_installed(self, name: str) -> bool:
        return name.lower() in self._installed

    def show_plugins(self) -> list[tuple[str, str, str, str | None, str]]:
        """SHOW PLUGINS rows for the replication plugins: Name, Status, Type, Library, License."""
        return [(s.name, "ACTIVE", PLUGIN_TYPE, s.soname, s.license) for s, _ in self._installed.values()]

    # Variables and status of all installed plugins, for the shells' admin statements.

    def system_variables(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for _, plugin in self._installed.values():
            merged.update(plugin.system_variables())
        return dict(sorted(merged.items()))

    def status_variables(self) -> dict[str, int | str]:
        merged: dict[str, int | str] = {}
        for _, plugin in self._installed.values():
            merged.update(plugin.status_variables())
        return dict(sorted(merged.items()))

    def knows_variable(self, name: str) -> bool:
        return any(plugin.knows_variable(name) for _, plugin in self._installed.values())

    def get_variable(self, name: str) -> int | str:
        return self._owner(name).get_variable(name)

    def set_variable(self, name: str, value: object) -> None:
        self._owner(name).set_variable(name, value)

    def variable_range(self, name: str) -> tuple[int, int] | None:
        return self._owner(name).variable_range(name)

    def flush_status(self) -> None:
        for _, plugin in self._installed.values():
            plugin.flush_status()

    def _owner(self, name: str) -> Plugin:
        for _, plugin in self._installed.values():
            if plugin.knows_variable(name):
                return plugin
        raise SQLError(ER_UNKNOWN_SYSTEM_VARIABLE, name)

    def _install(self, spec: PluginSpec) -> Plugin:
        plugin = spec.factory(self._interface, **self._options)
        plugin.install()
        self._installed[spec.name] = (spec, plugin)
        log.info("plugin %s installed (%s)", spec.name, spec.soname)
        return plugin
