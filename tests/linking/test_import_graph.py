"""No import circle through the linker: the modules of ``allennlp_longent.linking``,
``components``, ``registered`` and the linker's commands import one another one way only
(imports inside functions count: they run when the function does)."""

import ast
from pathlib import Path

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "allennlp_longent"
LINKER = ("allennlp_longent.linking", "allennlp_longent.components",
          "allennlp_longent.registered", "allennlp_longent.commands.calibrate",
          "allennlp_longent.commands.link_text")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycle_through(graph: dict, start: str) -> list:
    """A path start -> ... -> start, or []."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in graph.get(node, ()):
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return []


def test_the_linker_has_no_import_circle():
    graph = import_graph()
    circles = [cycle_through(graph, m) for m in graph if m.startswith(LINKER)]
    assert not [c for c in circles if c], [" -> ".join(c) for c in circles if c]
    assert "allennlp_longent.registered" in graph["allennlp_longent.components"]


def test_the_check_finds_a_circle():
    assert cycle_through({"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a") == ["a", "b", "c", "a"]
    assert cycle_through({"a": {"b"}, "b": set()}, "a") == []
