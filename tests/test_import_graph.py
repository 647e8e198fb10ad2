"""The import graph, read from the source with ast (every import statement, those inside functions too): no module
reaches itself again through its imports, and the scripted endpoint sits below the runs and the scenarios.

A late import inside a function hides a circle from Python but not from this graph: the endpoint once looked its
tools up in the scenario registry that way, and the registry reached the endpoint again through the runs."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("addons", "oracle", "recordings", "proxy")  # installed as backchannel.<folder>
# Circles another change removes; empty this once it is in (each entry is the circle's modules, sorted).


def _modules() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(("backchannel", *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> set[str]:
    """The package's modules that the module's import statements load, those inside functions too: `from a import b`
    loads a.b when b is a module, else a."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, one level up per extra dot
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names)
    return {module for module in found if module in MODULES and module != name}


def _circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Every strongly connected part of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(tuple(sorted(part)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _importers(folder: str, of: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules under `folder` that import a module under one of the `of` folders, and what they import."""
    prefix, targets = _dotted(folder), tuple(_dotted(f) for f in of)
    found = {
        name: sorted(m for m in _imported(name, path) if m.startswith(targets))
        for name, path in MODULES.items()
        if name == prefix or name.startswith(f"{prefix}.")
    }
    return {name: imported for name, imported in found.items() if imported}


def _dotted(folder: str) -> str:
    return "backchannel." + folder.replace("/", ".")


def test_no_module_of_the_package_reaches_itself_again_through_its_imports():
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    assert set(_circles(graph)) == set()


def test_the_graph_sees_an_import_inside_a_function_and_a_circle_it_closes(tmp_path: Path):
    late = tmp_path / "app.py"
    late.write_text("def f():\n    from backchannel.proxy.scenarios.registry import all_scenarios\n", encoding="utf-8")
    assert _imported("backchannel.proxy.endpoint.app", late) == {"backchannel.proxy.scenarios.registry"}
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [("a", "b", "c")]


def test_the_endpoint_is_handed_its_tools_and_imports_nothing_of_the_scenarios_or_the_runs():
    assert any(name.startswith(_dotted("proxy/endpoint.")) for name in MODULES)
    assert _importers("proxy/endpoint", of=("proxy/scenarios", "proxy/run")) == {}
    for name, path in MODULES.items():  # nor by name, through importlib
        if name.startswith(_dotted("proxy/endpoint.")):
            texts = [
                n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Constant)
            ]
            assert not [t for t in texts if isinstance(t, str) and _dotted("proxy/scenarios") in t], name


def test_the_runs_import_no_scenario():
    assert _importers("proxy/run", of=("proxy/scenarios",)) == {}
