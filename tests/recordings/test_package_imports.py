"""recordings/ imports in one direction: no module imports back round a circle, at its top or late in a function."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "recordings"
MODULES = {path.stem: path for path in PACKAGE.glob("*.py") if path.stem != "__init__"}


def _imports(path: Path) -> set[str]:
    """The package's modules `path` imports anywhere in it (a late import inside a function counts too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if (
            node.level == 1
            or node.module == "backchannel.recordings"
            or (node.module or "").startswith("backchannel.recordings.")
        ):
            base = (node.module or "").removeprefix("backchannel.recordings").lstrip(".")
            if base:
                found.add(base.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found & set(MODULES)


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of the graph as a path of names (first name repeated at the end), or [] when there is none."""
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> list[str]:
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                return [*path[path.index(other) :], other]
            if other not in state and (found := visit(other, [*path, other])):
                return found
        state[name] = "done"
        return []

    for name in sorted(graph):
        if name not in state and (found := visit(name, [name])):
            return found
    return []


def test_no_module_of_recordings_imports_back_round_a_circle():
    graph = {name: _imports(path) for name, path in MODULES.items()}
    assert _circle(graph) == []


def test_the_circle_finder_finds_one():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) == []


def test_the_shapes_hide_secrets_through_a_top_level_import():
    assert "redact" in _imports(MODULES["shapes"])
    assert {"meta", "shapes"}.isdisjoint(_imports(MODULES["redact"]))
