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


# -- module-level import cycles ------------------------------------------------------------------
# A module-level import runs when the module is first imported, so a cycle of them makes the
# import order matter (and half-initialised modules appear). Imports inside functions and under
# `if TYPE_CHECKING:` do not run at import time and are not edges.
CYCLE_ALLOWANCES: set[frozenset[str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                    visit(block)
            elif isinstance(node, ast.With | ast.ClassDef):
                visit(node.body)

    visit(tree.body)
    return found


def import_graph() -> dict[str, set[str]]:
    """Our modules and, for each, the modules of ours its module-level imports load (a package
    is its `__init__`)."""
    paths = {_module_name(p): p for package in ALLOWED for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        for node in module_level_imports(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                # `from a import b` loads a, and a.b when that is a module
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            # a module's own packages are initialised before it runs: not an edge
            graph[name].update(t for t in targets if t in paths and t != name and not name.startswith(t + "."))
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return cycles


def test_no_module_level_import_cycles():
    cycles = [c for c in import_cycles(import_graph()) if frozenset(c) not in CYCLE_ALLOWANCES]
    assert not cycles, "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle_and_ignores_what_does_not_run_at_import():
    tree = ast.parse(
        "import a\nfrom b import c\nif TYPE_CHECKING:\n    import d\n"
        "try:\n    import e\nexcept ImportError:\n    import f\n"
        "def g():\n    import h\nclass K:\n    import i\n"
    )
    names = [ast.unparse(n) for n in module_level_imports(tree)]
    assert names == ["import a", "from b import c", "import e", "import f", "import i"]
    graph = {"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}
    assert import_cycles(graph) == [["x", "y", "z"]]


# -- event byte offsets live in protocol/ ---------------------------------------------------------
# A practical static rule for the ways event layouts leak out of protocol/: in a module that
# handles events (it imports protocol.events), outside protocol/, refuse
# - indexing or slicing with a header field's offset (4 type_code, 5 server_id, 9 event_size,
#   13 log_pos, 17 flags; -4 the CRC32 footer) or with protocol's HEADER_LEN, CHECKSUM_LEN or
#   *_AT offset constants;
# - a header field's offset added to a position (`off + 9`), or given with a format as a record
#   layout (`("<u4", 13)`);
# - module-level *_AT constants (an offset table of one's own).
# pipeline/ frames in numpy and C for speed: it may index with protocol's constants (never with
# literals), since those come from the one declaration.
HEADER_OFFSETS = {4, 5, 9, 13, 17, -4}
POSITION_OFFSETS = {9, 13, 17}  # offsets no other arithmetic in these modules uses
LAYOUT_NAMES = {"HEADER_LEN", "CHECKSUM_LEN"}
MAY_USE_PROTOCOL_OFFSETS = {"pipeline"}


def _int_literals(node: ast.AST) -> set[int]:
    out: set[int] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
            if type(n.operand.value) is int:
                out.add(-n.operand.value)
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            out.add(n.value)
    return out


def _offset_names(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return {n for n in names if n in LAYOUT_NAMES or n.endswith("_AT")}


def event_offsets_outside_protocol(path: Path, package: str) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    if not any(isinstance(n, ast.ImportFrom) and n.module == "protocol.events" for n in ast.walk(tree)):
        return []
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            literals = _int_literals(node.slice) & HEADER_OFFSETS
            names = set() if package in MAY_USE_PROTOCOL_OFFSETS else _offset_names(node.slice)
            if literals or names:
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            if any(isinstance(side, ast.Constant) and side.value in POSITION_OFFSETS for side in (node.left, node.right)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
            fmt, at = node.elts
            if (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str)
                    and isinstance(at, ast.Constant) and at.value in POSITION_OFFSETS):
                found.append((node.lineno, ast.unparse(node)))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id.endswith("_AT"):
                found.append((node.lineno, f"{target.id} = ..."))
    rel = path.relative_to(ROOT)
    return [f"{rel}:{line}: {text}" for line, text in sorted(set(found))]


def test_event_byte_offsets_live_in_protocol():
    offenders = [
        hit
        for package in ALLOWED
        if package != "protocol"
        for path in sorted((ROOT / package).rglob("*.py"))
        for hit in event_offsets_outside_protocol(path, package)
    ]
    assert not offenders, "event byte offsets outside protocol/ (use protocol.events' accessors):\n" + "\n".join(offenders)
