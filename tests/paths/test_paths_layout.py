"""The paths family's modules: no import circles (lazy imports count), and no private name of
one module imported by another (the kernels' modules aside)."""

from __future__ import annotations

import ast
from pathlib import Path

import rompicapo.paths

PACKAGE = Path(rompicapo.paths.__file__).parent


def _imports() -> dict[str, set[str]]:
    """Module -> the paths modules it imports, at the top or inside functions."""
    names = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "rompicapo.paths":
                    found |= {a.name for a in node.names if a.name in names}
                elif node.module.startswith("rompicapo.paths."):
                    found.add(node.module.rsplit(".", 1)[1])
        graph[name] = found - {name}
    return graph


def test_no_import_circles():
    graph = _imports()
    state: dict[str, int] = {}  # 1: on the current chain, 2: done

    def visit(name: str, chain: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph[name]):
            assert state.get(other) != 1, " -> ".join([*chain, name, other])
            if other not in state:
                visit(other, [*chain, name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_no_private_names_across_modules():
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rompicapo"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                private = [n for n in private if "kernel" not in n and n != "_stream_store"]
                assert not private, f"{path.name} imports {private} from {node.module}"
