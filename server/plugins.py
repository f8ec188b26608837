"""SHOW PLUGINS, INSTALL PLUGIN, UNINSTALL PLUGIN on top of `semisync.plugin_registry`.

Contract
- One `PluginManager` per server wraps a `PluginRegistry` (the replication plugins installed
  in this server: built-ins `rpl_semi_sync_master`/`semisync_master.so`,
  `rpl_semi_sync_slave`/`semisync_slave.so`, third parties through entry points).
- The registry is a variable source and a status provider of the server's `Variables`: while a
  plugin is installed its variables exist (SHOW VARIABLES, SELECT @@, SET GLOBAL) and its
  status variables show; once uninstalled they are gone (1193), as in mysqld.
- INSTALL PLUGIN is remembered in `<datadir>/plugins.json` (mysqld's mysql.plugin table) and
  replayed by `Server.start()`; UNINSTALL PLUGIN forgets it. A role may also `load(name)` a
  plugin at startup without persisting it (mysqld's --plugin-load).
- Errors are the registry's (1125, 1126, 1127, 1305); the privilege check (SUPER) is the caller's.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.messages import schema_text
from semisync.plugin_registry import PluginRegistry

if TYPE_CHECKING:
    from server.listener import Server

log = logging.getLogger("semisync.server.plugins")

# The plugins every server has compiled in (shown by SHOW PLUGINS, never uninstallable here).
BUILTIN_ROWS = (
    ("binlog", "ACTIVE", "STORAGE ENGINE", None, "GPL"),
    ("mysql_native_password", "ACTIVE", "AUTHENTICATION", None, "GPL"),
    ("InnoDB", "ACTIVE", "STORAGE ENGINE", None, "GPL"),
)
SHOW_PLUGINS_COLUMNS = (schema_text("Name", 64), schema_text("Status", 16), schema_text("Type", 80),
                        schema_text("Library", 64, nullable=True), schema_text("License", 80))
# information_schema.PLUGINS' other columns of each built-in: version, type version, author,
# description, load option, maturity (as MariaDB 10.11 lists its own, the InnoDB row this engine's)
_BUILTIN_DETAILS = {
    "binlog": ("1.0", "101119.0", "MySQL AB", "This is a pseudo storage engine to represent the binlog in a transaction",
               "FORCE", "Stable"),
    "mysql_native_password": ("1.0", "2.2", "R.J.Silk, Sergei Golubchik", "Native MySQL authentication", "FORCE",
                              "Stable"),
    "InnoDB": ("10.11", "101119.0", "semisync", "Transactional tables on SQLite, answering to the name InnoDB", "ON",
               "Stable"),
}


class PluginManager:
    def __init__(self, server: Server, path: Path, **options: Any) -> None:
        self.server = server
        self.path = path
        self.registry = PluginRegistry(server.interface, **options)
        server.variables.add_source(self.registry)
        server.variables.add_status(self.registry.status_variables)

    # -- persistence ---------------------------------------------------------------------------

    def _persisted(self) -> list[dict[str, str]]:
        try:
            return list(json.loads(self.path.read_text()).get("plugins", []))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            log.exception("cannot read %s; no plugin reinstalled", self.path)
            return []

    def _save(self, entries: list[dict[str, str]]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w") as f:
            json.dump({"plugins": entries}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    async def load_persisted(self) -> None:
        """Startup: reinstall what INSTALL PLUGIN installed before (a failure is logged)."""
        for entry in self._persisted():
            name, soname = entry.get("name", ""), entry.get("soname", "")
            if self.registry.is_installed(name):
                continue
            try:
                self.registry.install(name, soname)
            except Exception:
                log.exception("cannot reinstall plugin %s (%s)", name, soname)

    # -- statements ----------------------------------------------------------------------------

    def load(self, name: str) -> Any:
        """Install a known plugin at startup without persisting it; returns the instance."""
        existing = self.registry.get(name)
        return existing if existing is not None else self.registry.load(name)

    def install(self, name: str, soname: str) -> Any:
        plugin = self.registry.install(name, soname)
        entries = [e for e in self._persisted() if e.get("name", "").lower() != name.lower()]
        entries.append({"name": name.lower(), "soname": soname})
        self._save(entries)
        return plugin

    def uninstall(self, name: str) -> None:
        self.registry.uninstall(name)
        entries = [e for e in self._persisted() if e.get("name", "").lower() != name.lower()]
        self._save(entries)

    def get(self, name: str) -> Any | None:
        return self.registry.get(name)

    def show_rows(self) -> list[tuple[str, str, str, str | None, str]]:
        return [*BUILTIN_ROWS, *self.registry.show_plugins()]

    def infoschema_rows(self) -> list[tuple]:
        """information_schema.PLUGINS: SHOW PLUGINS' rows with MariaDB's other columns."""
        rows = []
        for name, status, kind, library, license_ in self.show_rows():
            version, type_version, author, description, load, maturity = _BUILTIN_DETAILS.get(
                name, ("1.0", "2.0", "semisync", f"{name}: semi-synchronous replication", "ON", "Stable"))
            rows.append((name, version, status, kind, type_version, library, None if library is None else "1.15",
                         author, description, license_, load, maturity, version))
        return rows

    def flush_status(self) -> None:
        self.registry.flush_status()

    def shutdown(self) -> None:
        self.registry.shutdown()
