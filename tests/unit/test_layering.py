"""The package layering of STYLE.md, enforced with `ast`.

config/ and protocol/ import nothing of ours; semisync/ and engine/ (SQL on SQLite, shared by master and slave) import protocol only; server/ (the MySQL-protocol shell shared by master and slave) imports protocol, engine,
semisync, config; binlog/ (file
storage shared by master, slave and pipeline) imports protocol only; master/ and slave/ never
import each other; node/ (the one server holding both roles) imports master and slave and what
they may import; pipeline/ imports protocol and binlog only. Only cli/ may import everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = {"protocol", "binlog", "engine", "semisync", "server", "master", "slave", "node", "config", "cli", "pipeline"}
ALLOWED = {
    "config": set(),
    "protocol": set(),
    "binlog": {"protocol"},
    "engine": {"protocol"},
    "semisync": {"protocol"},
    "server": {"protocol", "engine", "semisync", "config"},
    "master": {"protocol", "binlog", "engine", "semisync", "server", "config"},
    "slave": {"protocol", "binlog", "engine", "semisync", "server", "config"},
    "node": {"protocol", "binlog", "engine", "semisync", "server", "config", "master", "slave"},
    "pipeline": {"protocol", "binlog"},
    "cli": OURS,
}


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import (absolute imports only)"
            if node.module:
                names.add(node.module.split(".")[0])
    return names


def test_packages_import_only_what_the_layering_allows():
    violations = []
    for package, allowed in ALLOWED.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in imported_top_levels(path) & OURS:
                if name != package and name not in allowed:
                    violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not violations, "\n".join(violations)


def test_construct_lives_only_in_protocol():
    offenders = [
        str(path.relative_to(ROOT))
        for package in ALLOWED
        if package != "protocol"
        for path in (ROOT / package).rglob("*.py")
        if "construct" in imported_top_levels(path)
    ]
    assert not offenders
