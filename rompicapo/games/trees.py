"""Game trees given explicitly: for tests, teaching and checking searches against each other.

A tree is a number (a leaf: its utility for MAX), a list of subtrees (a decision node, MAX at
even depth and MIN at odd depth by default), or ``("max" | "min", [subtrees])`` to set the
player, or ``("chance", [(probability, subtree), ...])`` for a chance node. A state is the
path of child indices from the root.
"""

from __future__ import annotations

from typing import Any

from rompicapo.common import InputError
from rompicapo.games.game import CHANCE, MAX, MIN, Game

__all__ = ["ExplicitTree"]

Path = tuple[int, ...]


class ExplicitTree(Game):
    """The game whose moves are child indices of a fixed tree (see the module docstring)."""

    name = "tree"

    def __init__(self, tree: Any, bounds: tuple[float, float] | None = None) -> None:
        self.tree = tree
        leaves = list(_leaves(tree))
        if not leaves:
            raise InputError("a tree needs at least one leaf")
        self.bounds = bounds if bounds is not None else (min(leaves), max(leaves))

    def _node(self, path: Path) -> Any:
        node = self.tree
        for i in path:
            kind, children = _split(node, 0)
            node = children[i][1] if kind == CHANCE else children[i]
        return node

    def initial(self) -> Path:
        return ()

    def to_move(self, path: Path) -> int:
        node = self._node(path)
        if isinstance(node, (int, float)):
            return MAX if len(path) % 2 == 0 else MIN
        return _split(node, len(path))[0]

    def moves(self, path: Path) -> list[int]:
        return list(range(len(_split(self._node(path), len(path))[1])))

    def outcomes(self, path: Path) -> list[tuple[int, float]]:
        _, children = _split(self._node(path), len(path))
        return [(i, p) for i, (p, _) in enumerate(children)]

    def apply(self, path: Path, move: int) -> Path:
        return (*path, move)

    def undo(self, path: Path, move: int) -> Path:
        return path[:-1]

    def is_terminal(self, path: Path) -> bool:
        return isinstance(self._node(path), (int, float))

    def utility(self, path: Path) -> float:
        return self._node(path)


def _split(node: Any, depth: int) -> tuple[int, list[Any]]:
    if isinstance(node, tuple):
        kind, children = node
        return {"max": MAX, "min": MIN, "chance": CHANCE}[kind], children
    return (MAX if depth % 2 == 0 else MIN), node


def _leaves(node: Any):
    if isinstance(node, (int, float)):
        yield node
        return
    kind, children = _split(node, 0)
    for c in children:
        yield from _leaves(c[1] if kind == CHANCE else c)
